/**
 * A small in-process cache with a time to live and a size bound, for reads that many requests
 * repeat (tokens, policies). Writers in the same process invalidate their keys at once; other
 * instances see a change within the TTL.
 */
export class TtlCache<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  get(key: K): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: K, value: V): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}

/**
 * `load()`'s promise under `key` while fresh, shared by concurrent callers; a failed load is not
 * kept (and a newer entry set meanwhile is left alone).
 */
export function cachedLoad<K, T>(cache: TtlCache<K, Promise<unknown>>, key: K, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit) return hit as Promise<T>;
  const value = load();
  cache.set(key, value);
  value.catch(() => cache.get(key) === value && cache.delete(key));
  return value;
}

/** The TTL for auth reads: AUTH_CACHE_MS, default 1000 (0 turns caching off). */
export function authCacheMs(env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(env.AUTH_CACHE_MS ?? 1000);
  return Number.isFinite(v) && v >= 0 ? v : 1000;
}
