/** Validity periods of issued certificates (lib/pki/ttl.ts): not_after, the PKI ttl rule, the CA's own expiry. */
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../../lib/errors';
import { parseNotAfter, resolveNotAfter } from '../../lib/pki/ttl';

const NOW = Date.UTC(2030, 0, 1);
const mount = { mountDefaultTtl: 3600, mountMaxTtl: 7200 };

describe('not_after', () => {
  it('reads UTC as YYYY-MM-ddTHH:MM:SSZ', () => {
    expect(parseNotAfter('2031-02-03T04:05:06Z')).toBe(Date.UTC(2031, 1, 3, 4, 5, 6));
    expect(parseNotAfter(' 2031-02-03T04:05:06Z ')).toBe(Date.UTC(2031, 1, 3, 4, 5, 6));
  });
  it.each([
    '2031-02-03',
    '2031-02-03T04:05:06',
    '2031-02-03T04:05:06+01:00',
    '2031-02-03T04:05:06.000Z',
    '2031-13-03T04:05:06Z',
    'tomorrow',
    '',
  ])('refuses %j', (v) => {
    expect(() => parseNotAfter(v)).toThrow(BadRequest);
    expect(() => parseNotAfter(v)).toThrow(/expected UTC time as YYYY-MM-ddTHH:MM:SSZ/);
  });
  it('is used as given, and refused in the past or beside a ttl', () => {
    expect(resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z' }, mount)).toEqual({ notAfter: Date.UTC(2031, 0, 1), warnings: [] });
    expect(() => resolveNotAfter(NOW, { notAfter: '2029-01-01T00:00:00Z' }, mount)).toThrow('not_after is in the past');
    expect(() => resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z', ttl: 60 }, mount)).toThrow(
      'either ttl or not_after should be provided, not both',
    );
  });
});

describe('ttl', () => {
  it.each([
    ['the requested ttl', { ttl: 600 }, {}, 600],
    ["the role's ttl by default", {}, { roleTtl: 900 }, 900],
    ["the mount's default otherwise", {}, {}, 3600],
    ["a role's max_ttl replaces the mount's (above it)", { ttl: 10_000 }, { roleMaxTtl: 20_000 }, 10_000],
    ["a default cut to the role's max_ttl, silently", {}, { roleMaxTtl: 60 }, 60],
  ] as const)('grants %s', (_w, input, limits, ttl) => {
    expect(resolveNotAfter(NOW, input, { ...mount, ...limits })).toEqual({ notAfter: NOW + ttl * 1000, warnings: [] });
  });
  it('cuts an explicit ttl above the maximum to it, with a warning', () => {
    const r = resolveNotAfter(NOW, { ttl: 10_000 }, mount);
    expect(r.notAfter).toBe(NOW + 7200 * 1000);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/is longer than permitted maxTTL/);
  });
});

describe("the CA's expiry", () => {
  it('allows a certificate ending with the CA, refuses one ending after it', () => {
    expect(resolveNotAfter(NOW, { ttl: 3600 }, { ...mount, caNotAfter: NOW + 3600 * 1000 }).notAfter).toBe(NOW + 3600 * 1000);
    expect(() => resolveNotAfter(NOW, { ttl: 3601 }, { ...mount, caNotAfter: NOW + 3600 * 1000 })).toThrow(
      /beyond the expiration of the CA certificate at 2030-01-01T01:00:00.000Z/,
    );
    expect(() => resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z' }, { ...mount, caNotAfter: NOW + 1000 })).toThrow(BadRequest);
  });
});
