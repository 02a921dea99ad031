/**
 * The sys services every function carries in its `Deps` (lib/deps.ts), declared here by
 * declaration merging: lib/deps.ts stays below sys, and every module that names `Deps` sees
 * these members typed. lib/composition.ts makes them.
 */
import type { Leases, RevokerRegistry } from './leases';
import type { Policies } from './policies';
import type { Tokens } from './tokens';

declare module '../deps' {
  interface Deps {
    tokens: Tokens;
    policies: Policies;
    leases: Leases;
    revokers: RevokerRegistry;
  }
}
