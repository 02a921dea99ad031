/**
 * The sys services every function carries in its `Deps` (lib/deps.ts), declared here by
 * declaration merging: lib/deps.ts stays below sys, and every module that names `Deps` sees
 * these members typed. lib/composition.ts makes them.
 */
import type { Leases, RevokerRegistry } from './leases';
import type { Policies } from './policies';
import type { LeasePlace, SecretLeases } from './secret-leases';
import type { Tokens } from './tokens';

declare module '../deps' {
  interface Deps {
    tokens: Tokens;
    policies: Policies;
    leases: Leases;
    revokers: RevokerRegistry;
    /** The leases of a request's secret, under its mount and path, owned by its caller (secret-leases.ts). */
    secrets(place: LeasePlace): SecretLeases;
  }
}
