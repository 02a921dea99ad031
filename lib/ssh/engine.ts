/** The SSH engine: CA signing, one-time passwords and dynamic keys. */
import type { Deps } from '../deps';
import type { EngineModule } from '../engine-module';
import type { LeaseRecord } from '../sys/leases';
import { revokeDynamic, type DynamicRevoke } from './dynamic';
import { otpKey, type OtpRevoke } from './otp';
import { configPaths } from './paths/config';
import { credsPaths } from './paths/creds';
import { issuerPaths } from './paths/issuers';
import { keyPaths, rolePaths } from './paths/roles';
import { revokePaths } from './paths/revoke';
import { signPaths } from './paths/sign';
import { mountPartition } from '../mount-partition';
import { CertRecords } from './cert-records';
import { revokeLeased, type CertRevoke } from './revoke';
import { SshStore } from './ssh-store';

type SshRevoke = OtpRevoke | DynamicRevoke | CertRevoke;

/** Undoes an SSH lease; every branch is idempotent. */
export function sshRevoker(deps: Deps) {
  return async (lease: LeaseRecord): Promise<void> => {
    // The revoke record is what this engine wrote when it made the lease.
    const r = lease.revoke as SshRevoke;
    if (r.kind === 'cert') return revokeLeased(new CertRecords(mountPartition(deps, 'ssh', lease.mount)), r, deps.now());
    const store = new SshStore(deps, mountPartition(deps, 'ssh', r.partition_mount));
    if (r.kind === 'otp') await store.part.delete(otpKey(r.hash));
    else await revokeDynamic(store, r);
  };
}

export const sshEngine: EngineModule = {
  type: 'ssh',
  paths: () => [...configPaths, ...issuerPaths, ...keyPaths, ...rolePaths, ...credsPaths, ...signPaths, ...revokePaths],
  revoker: sshRevoker,
};
