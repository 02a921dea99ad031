/** Table tests: a token's TTL, as the reference server decides, and how durations are printed. */
import { describe, expect, it } from 'vitest';
import { calculateTtl, humanDuration } from '../../lib/sys/token-ttl';

describe('calculateTtl', () => {
  const t = { increment: 0, ttl: 0, period: 0, explicitMaxTtl: 0, maxTtl: 0, start: 1000, now: 1000 };
  it.each<[string, Partial<typeof t>, number]>([
    ['the default', {}, 768 * 3600],
    ['the asked ttl', { ttl: 60 }, 60],
    ['the increment over the ttl', { ttl: 60, increment: 90 }, 90],
    ['capped by explicit_max_ttl from the start', { ttl: 7200, explicitMaxTtl: 3600, now: 1600 }, 3000],
    ['capped by a role maximum', { ttl: 7200, maxTtl: 1800 }, 1800],
    ['a period, increment ignored', { period: 600, increment: 9999 }, 600],
    ['a period long after the system maximum', { period: 600, now: 1000 + 2000 * 3600 }, 600],
    ['a period within explicit_max_ttl', { period: 600, explicitMaxTtl: 1000, now: 1800 }, 200],
  ])('%s', (_, change, ttl) => {
    expect(calculateTtl({ ...t, ...change }).ttl).toBe(ttl);
  });

  it('refuses a renewal past the maximum', () => {
    expect(() => calculateTtl({ ...t, explicitMaxTtl: 60, now: 1060 })).toThrow(/past the max TTL/);
  });

  it('prints durations as the reference does', () => {
    expect([0, 45, 90, 3600, 3605, 5400].map(humanDuration)).toEqual(['0s', '45s', '1m30s', '1h', '1h5s', '1h30m']);
  });
});
