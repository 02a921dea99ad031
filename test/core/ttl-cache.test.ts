import { afterEach, describe, expect, it, vi } from 'vitest';
import { authCacheMs, TtlCache } from '../../lib/ttl-cache';

afterEach(() => vi.useRealTimers());

describe('TtlCache', () => {
  it('forgets entries after the TTL, on delete, and beyond its size', () => {
    vi.useFakeTimers();
    const c = new TtlCache<string, number>(1000, 2);
    c.set('a', 1);
    expect(c.get('a')).toBe(1);
    vi.advanceTimersByTime(1001);
    expect(c.get('a')).toBeUndefined();
    c.set('a', 1);
    c.delete('a');
    expect(c.get('a')).toBeUndefined();
    c.set('x', 1);
    c.set('y', 2);
    c.set('z', 3);
    expect([c.get('x'), c.get('y'), c.get('z')]).toEqual([undefined, 2, 3]);
  });

  it('caches nothing with a TTL of 0', () => {
    const c = new TtlCache<string, number>(0);
    c.set('a', 1);
    expect(c.get('a')).toBeUndefined();
  });

  it('reads AUTH_CACHE_MS, falling back to 1000 ms', () => {
    expect(authCacheMs({})).toBe(1000);
    expect(authCacheMs({ AUTH_CACHE_MS: '0' })).toBe(0);
    expect(authCacheMs({ AUTH_CACHE_MS: 'x' })).toBe(1000);
  });
});
