/** A cloud credential's lease length: the one lease-TTL rule (lib/lease-ttl.ts), as the reference's core grants a lease. */
import { grantTtl, LEASE } from '../lease-ttl';
import type { MountRef } from '../types';

export interface LeaseTtl {
  ttl: number;
  maxTtl: number;
}

export function leaseTtl(mount: MountRef, roleTtl: number, roleMaxTtl: number): LeaseTtl {
  const { ttl, maxTtl } = grantTtl(LEASE, { roleTtl, roleMaxTtl, mountDefaultTtl: mount.defaultLeaseTtl, mountMaxTtl: mount.maxLeaseTtl });
  return { ttl, maxTtl };
}
