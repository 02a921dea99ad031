/** lib/pki/cache.ts: one bounded TtlCache per store; a failed load is not kept. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cached, invalidate } from '../../lib/pki/cache';
import type { Store } from '../../lib/store/store';

afterEach(() => vi.useRealTimers());
const newStore = () => ({}) as Store; // only its identity keys the cache

describe('pki cache', () => {
  it('loads once within the TTL, again after it or after invalidate', async () => {
    vi.useFakeTimers();
    const store = newStore();
    const load = vi.fn(async () => 'ca');
    await cached(store, 'ca', load);
    await cached(store, 'ca', load);
    expect(load).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2001);
    await cached(store, 'ca', load);
    invalidate(store, 'ca');
    await cached(store, 'ca', load);
    expect(load).toHaveBeenCalledTimes(3);
  });

  it('is bounded: the oldest entry goes when full', async () => {
    const store = newStore();
    for (let i = 0; i < 1001; i++) await cached(store, `role/${i}`, async () => i);
    const load = vi.fn(async () => -1);
    expect(await cached(store, 'role/1000', load)).toBe(1000);
    expect(await cached(store, 'role/0', load)).toBe(-1);
  });

  it('does not keep a failed load', async () => {
    const store = newStore();
    await expect(cached(store, 'k', () => Promise.reject(new Error('read failed')))).rejects.toThrow('read failed');
    expect(await cached(store, 'k', async () => 'ok')).toBe('ok');
  });
});
