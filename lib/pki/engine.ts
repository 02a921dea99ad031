/** The PKI engine: its paths for every mount of type pki, and the revoker for certificate leases. */
import type { EngineModule } from '../engine-module';
import type { Deps } from '../deps';
import { NotFoundError } from '../domain-errors';
import type { LeaseRecord } from '../sys/leases';
import { acmePaths } from './paths/acme';
import { acmeAdminPaths } from './paths/acme-admin';
import { adminPaths } from './paths/admin';
import { caAdminPaths } from './paths/ca-admin';
import { issuePaths } from './paths/issue';
import { issuerPaths } from './paths/issuers';
import { keyPaths } from './paths/keys';
import { ocspPaths } from './paths/ocsp';
import { readPaths } from './paths/read';
import { rolePaths } from './paths/roles';
import { revokeSerial } from './revoke';
import { parseSerial } from './serial';
import { mountPartition } from '../mount-partition';

export const pkiEngine: EngineModule = {
  type: 'pki',
  paths: () => [
    ...readPaths,
    ...ocspPaths,
    ...issuerPaths,
    ...keyPaths,
    ...caAdminPaths,
    ...rolePaths,
    ...issuePaths,
    ...adminPaths,
    ...acmeAdminPaths,
    ...acmePaths,
  ],
  revoker: (deps: Deps) => async (lease: LeaseRecord) => {
    const serial = (lease.revoke as { serial?: unknown } | null)?.serial;
    if (typeof serial !== 'string') return;
    try {
      await revokeSerial(deps, mountPartition(deps, 'pki', lease.mount), parseSerial(serial));
    } catch (e) {
      // Already gone (tidied) or never stored: nothing left to revoke.
      if (e instanceof NotFoundError) return;
      throw e;
    }
  },
};
