/**
 * What signing reads on every request, kept briefly per process: a mount's roles and the issuer
 * each reference resolves to (with its opened key). Any write this process makes through the
 * mount's SshStore (roles, issuers, the default, names, migrations) forgets the whole mount at
 * once; other instances see a change within TTL_MS, as PKI's roles and issuers (lib/pki/cache.ts).
 * Certificates and revocations are not here: the KRL is read afresh.
 */
import type { Partition } from '../store/store';
import { cachedLoad, TtlCache } from '../ttl-cache';

export const SIGN_CACHE_TTL_MS = 2000;
const MAX_ENTRIES = 1000;
const caches = new WeakMap<object, Map<string, TtlCache<string, Promise<unknown>>>>();

function mountCache(store: object, mount: string): TtlCache<string, Promise<unknown>> {
  let mounts = caches.get(store);
  if (!mounts) caches.set(store, (mounts = new Map()));
  let c = mounts.get(mount);
  if (!c) {
    if (mounts.size >= MAX_ENTRIES) mounts.clear();
    mounts.set(mount, (c = new TtlCache(SIGN_CACHE_TTL_MS, MAX_ENTRIES)));
  }
  return c;
}

/** `load()`'s value for `key` on the mount, shared while fresh; a failed load is not kept. */
export function cachedOnMount<T>(store: object, mount: string, key: string, load: () => Promise<T>): Promise<T> {
  return cachedLoad(mountCache(store, mount), key, load);
}

export function forgetMount(store: object, mount: string): void {
  caches.get(store)?.delete(mount);
}

const WRITES = new Set(['put', 'delete', 'batchPut', 'batchDelete', 'increment']);

/** The partition, forgetting the mount's cache after every write made through it (whether it succeeded or not). */
export function forgettingWrites(part: Partition, forget: () => void): Partition {
  return new Proxy(part, {
    get(t, prop) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== 'function' || !WRITES.has(prop as string)) return typeof v === 'function' ? (v as () => unknown).bind(t) : v;
      return async (...args: unknown[]) => {
        try {
          return await (v as (...a: unknown[]) => Promise<unknown>).apply(t, args);
        } finally {
          forget();
        }
      };
    },
  });
}
