/**
 * A short-lived per-process cache of a mount's small, rarely written records (the CA record,
 * roles, config/urls), so issuing does not read them from the table on every request. Writes
 * made by this process drop the entry at once; other instances see a change within TTL_MS.
 * One bounded TtlCache per store (lib/ttl-cache.ts), at most MAX_ENTRIES records.
 */
import type { Store } from '../store/store';
import { cachedLoad, TtlCache } from '../ttl-cache';

const TTL_MS = 2000;
const MAX_ENTRIES = 1000;
const caches = new WeakMap<Store, TtlCache<string, Promise<unknown>>>();

function cacheOf(store: Store): TtlCache<string, Promise<unknown>> {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = new TtlCache(TTL_MS, MAX_ENTRIES)));
  return c;
}

export function cached<T>(store: Store, key: string, load: () => Promise<T>): Promise<T> {
  return cachedLoad(cacheOf(store), key, load);
}

export function invalidate(store: Store, key: string): void {
  cacheOf(store).delete(key);
}
