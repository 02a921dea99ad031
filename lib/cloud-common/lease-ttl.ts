/** A credential's lease length: the role's ttl/max_ttl within the mount's defaults and maximum. */
import type { MountRef } from '../http/path';

export interface LeaseTtl {
  ttl: number;
  maxTtl: number;
}

export function leaseTtl(mount: MountRef, roleTtl: number, roleMaxTtl: number): LeaseTtl {
  const maxTtl = roleMaxTtl > 0 ? Math.min(roleMaxTtl, mount.maxLeaseTtl) : mount.maxLeaseTtl;
  const ttl = Math.min(roleTtl > 0 ? roleTtl : mount.defaultLeaseTtl, maxTtl);
  return { ttl, maxTtl };
}
