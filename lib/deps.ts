/**
 * What every function is built from (lib/composition.ts builds it once per process). Types
 * only, and below the layers that use it: the sys services (tokens, policies, leases, lease
 * revokers) are added to `Deps` by lib/sys/services.ts through declaration merging, so neither
 * the HTTP edge nor sys has to import anything above itself to name them.
 */
import type { Auditor } from './audit/auditor';
import type { Environment, Mount } from './config';
import type { Sealer } from './keys/sealed';
import type { Store } from './store/store';
import type { Authorizer, ResponseWrapper } from './types';

export interface Deps {
  env: Environment;
  mounts: Mount[];
  store: Store;
  sealer: Sealer;
  authorizer: Authorizer;
  audit: Auditor;
  /** Response wrapping (X-Vault-Wrap-TTL), kept by sys. */
  wrapping: ResponseWrapper;
  now: () => number;
}
