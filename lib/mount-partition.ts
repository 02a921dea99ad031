/**
 * Where a mount keeps its records: one partition of the store per mount, `<type>/<mount>` for
 * an engine, `auth/<path>` for an auth method and `sys` for the system backend. The HTTP edge hands each request its mount's
 * partition (`req.part`, through http/path.ts); code that runs outside a request (lease
 * revokers, the scheduled tidy and finalisation) builds it here. No HTTP in this module.
 */
import type { EngineType } from './types';
import type { Partition, Store } from './store/store';

/** The partition name of a mount: `sys` for the system backend, `auth/<path>` for an auth method, else `<type>/<mount>`. */
export function partitionName(mount: { type: string; path: string }): string {
  if (mount.type === 'system') return 'sys';
  return mount.path.startsWith('auth/') ? mount.path : `${mount.type}/${mount.path}`;
}

/** An engine mount's partition, for code that runs outside a request. */
export function mountPartition(deps: { store: Store }, type: EngineType, mount: string): Partition {
  return deps.store.partition(partitionName({ type, path: mount }));
}
