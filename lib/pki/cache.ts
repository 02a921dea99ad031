/**
 * A short-lived per-process cache of a mount's small, rarely written records (the CA record,
 * roles, config/urls), so issuing does not read them from the table on every request. Writes
 * made by this process drop the entry at once; other instances see a change within TTL_MS.
 */
import type { Store } from '../store/store';

const TTL_MS = 2000;
const caches = new WeakMap<Store, Map<string, { at: number; value: Promise<unknown> }>>();

function mapOf(store: Store) {
  let m = caches.get(store);
  if (!m) caches.set(store, (m = new Map()));
  return m;
}

export function cached<T>(store: Store, key: string, load: () => Promise<T>): Promise<T> {
  const m = mapOf(store);
  const now = Date.now();
  const hit = m.get(key);
  if (hit && now - hit.at < TTL_MS) return hit.value as Promise<T>;
  const value = load();
  m.set(key, { at: now, value });
  value.catch(() => m.delete(key));
  return value;
}

export function invalidate(store: Store, key: string): void {
  mapOf(store).delete(key);
}
