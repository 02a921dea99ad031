/** Validity periods of issued certificates (lib/pki/ttl.ts): not_after, the PKI ttl rule, the CA's own expiry. */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { parseNotAfter, resolveNotAfter } from '../../lib/pki/ttl';

const NOW = Date.UTC(2030, 0, 1);
const mount = { mountDefaultTtl: 3600, mountMaxTtl: 7200 };
const HOUR = 3600;
const DAY = 24 * HOUR;
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString().replace('.000Z', 'Z');

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
    expect(() => parseNotAfter(v)).toThrow(InvalidInput);
    expect(() => parseNotAfter(v)).toThrow(/expected UTC time as YYYY-MM-ddTHH:MM:SSZ/);
  });
  it('is used as given within the maximum, and refused in the past or beside a ttl', () => {
    expect(resolveNotAfter(NOW, { notAfter: '2030-01-01T02:00:00Z' }, mount)).toEqual({ notAfter: Date.UTC(2030, 0, 1, 2), warnings: [] });
    expect(resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z' }, { ...mount, roleMaxTtl: 366 * DAY })).toEqual({
      notAfter: Date.UTC(2031, 0, 1),
      warnings: [],
    });
    expect(() => resolveNotAfter(NOW, { notAfter: '2029-01-01T00:00:00Z' }, mount)).toThrow('not_after is in the past');
    expect(() => resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z', ttl: 60 }, mount)).toThrow(
      'either ttl or not_after should be provided, not both',
    );
  });
});

describe('not_after above the maximum (the same rule as ttl)', () => {
  const threeYears = '2033-01-01T00:00:00Z';
  it.each([
    ["beyond the role's max_ttl: cut to it", { notAfter: threeYears }, { roleMaxTtl: 72 * HOUR }, 72 * HOUR],
    ["beyond the mount's maximum, no role max_ttl: cut to it", { notAfter: threeYears }, {}, 7200],
    ["a role's max_ttl above the mount's replaces it", { notAfter: at(10 * HOUR) }, { roleMaxTtl: 20 * HOUR }, undefined],
    ["one second beyond the role's max_ttl: cut to it", { notAfter: at(72 * HOUR + 1) }, { roleMaxTtl: 72 * HOUR }, 72 * HOUR],
    ["exactly the role's max_ttl: as asked", { notAfter: at(72 * HOUR) }, { roleMaxTtl: 72 * HOUR }, undefined],
    ["the role's own not_after beyond its max_ttl: cut to it", { roleNotAfter: threeYears }, { roleMaxTtl: 72 * HOUR }, 72 * HOUR],
  ] as const)('%s', (_w, input, limits, cutTo) => {
    const r = resolveNotAfter(NOW, input, { ...mount, ...limits });
    if (cutTo === undefined) {
      expect(r).toEqual({ notAfter: Date.parse(Object.values(input)[0]!), warnings: [] });
      return;
    }
    expect(r.notAfter).toBe(NOW + cutTo * 1000);
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(
      /^not_after "20\d\d-[-0-9T:]+Z" is \d+h0m[0-9]+s away, longer than permitted maxTTL "\d+h0m0s", so maxTTL is being used$/,
    );
  });

  it('cuts to the maximum at a moment that is not a whole second', () => {
    const now = NOW + 400;
    expect(resolveNotAfter(now, { notAfter: threeYears }, { ...mount, roleMaxTtl: 60 }).notAfter).toBe(now + 60_000);
  });

  it("cuts to the maximum first, then holds the result to the CA's expiry", () => {
    const ca = { ...mount, roleMaxTtl: 72 * HOUR, caNotAfter: NOW + 100 * HOUR * 1000 };
    expect(resolveNotAfter(NOW, { notAfter: threeYears }, ca).notAfter).toBe(NOW + 72 * HOUR * 1000);
    const longRole = { ...ca, roleMaxTtl: 5 * 366 * DAY };
    expect(() => resolveNotAfter(NOW, { notAfter: threeYears }, longRole)).toThrow(/beyond the expiration of the CA certificate/);
  });
});

describe("the role's not_after", () => {
  it("is used in place of the request's, with a warning; a ttl beside it is refused", () => {
    const role = { ...mount, roleMaxTtl: 10 * DAY };
    expect(resolveNotAfter(NOW, { roleNotAfter: at(DAY) }, role)).toEqual({ notAfter: NOW + DAY * 1000, warnings: [] });
    const both = resolveNotAfter(NOW, { roleNotAfter: at(DAY), notAfter: at(2 * DAY) }, role);
    expect(both.notAfter).toBe(NOW + DAY * 1000);
    expect(both.warnings).toEqual(["the role's not_after is used; the request's not_after is ignored"]);
    expect(() => resolveNotAfter(NOW, { roleNotAfter: at(DAY), ttl: 60 }, role)).toThrow(
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
    expect(() => resolveNotAfter(NOW, { notAfter: '2031-01-01T00:00:00Z' }, { ...mount, caNotAfter: NOW + 1000 })).toThrow(InvalidInput);
  });
});
