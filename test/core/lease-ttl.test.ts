/**
 * The one lease-TTL rule (lib/lease-ttl.ts): request, role, mount default; limited by the
 * effective maximum; the reference's per-engine differences as parameters.
 */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { grantTtl, LEASE, maxTtlOf, type TtlInputs, type TtlRule } from '../../lib/lease-ttl';
import { PKI_TTL } from '../../lib/pki/ttl';

const mount = { mountDefaultTtl: 3600, mountMaxTtl: 7200 };
const REFUSE: TtlRule = { roleMax: 'replaces-mount', aboveMax: 'refuse' };

describe('grantTtl', () => {
  it.each<[string, TtlRule, Partial<TtlInputs>, number, number]>([
    ['lease: nothing set takes the mount default', LEASE, {}, 3600, 7200],
    ['lease: the role ttl', LEASE, { roleTtl: 60 }, 60, 7200],
    ['lease: the request ttl wins over the role', LEASE, { requested: 90, roleTtl: 60 }, 90, 7200],
    ['lease: a role max below the mount max lowers it', LEASE, { roleMaxTtl: 600 }, 600, 600],
    ['lease: a role max above the mount max is limited by it', LEASE, { roleTtl: 9000, roleMaxTtl: 9999 }, 7200, 7200],
    ['certificate: a role max replaces the mount max', PKI_TTL, { roleTtl: 9000, roleMaxTtl: 9999 }, 9000, 9999],
    ['certificate: without a role max, the mount max', PKI_TTL, { roleTtl: 9000 }, 7200, 7200],
    ['a defaulted ttl above the max is cut silently', REFUSE, { roleTtl: 500, roleMaxTtl: 100 }, 100, 100],
    ['the request up to the max', REFUSE, { requested: 7200 }, 7200, 7200],
    ['no default anywhere takes the max', PKI_TTL, { mountDefaultTtl: 0 }, 7200, 7200],
  ])('%s', (_what, rule, input, ttl, maxTtl) => {
    expect(grantTtl(rule, { ...mount, ...input })).toEqual({ ttl, maxTtl, warnings: [] });
  });

  it('clamps an explicit ttl above the maximum with the reference warning', () => {
    expect(grantTtl(PKI_TTL, { ...mount, requested: 8000 })).toEqual({
      ttl: 7200,
      maxTtl: 7200,
      warnings: ['TTL "2h13m20s" is longer than permitted maxTTL "2h0m0s", so maxTTL is being used'],
    });
  });

  it('refuses an explicit ttl above the maximum, naming both', () => {
    expect(() => grantTtl(REFUSE, { ...mount, requested: 7201 })).toThrow(InvalidInput);
    expect(() => grantTtl(REFUSE, { ...mount, requested: 7201 })).toThrow(/ttl 2h0m1s is larger than the maximum 2h0m0s/);
    const own: TtlRule = { ...REFUSE, refusal: (_t, max) => `too long (${max})` };
    expect(() => grantTtl(own, { ...mount, requested: 7201 })).toThrow('too long (7200)');
  });

  it('maxTtlOf: role max within or in place of the mount max', () => {
    expect([maxTtlOf(LEASE, 0, 50), maxTtlOf(LEASE, 80, 50), maxTtlOf(LEASE, 20, 50)]).toEqual([50, 50, 20]);
    expect([maxTtlOf(PKI_TTL, 0, 50), maxTtlOf(PKI_TTL, 80, 50), maxTtlOf(PKI_TTL, 20, 50)]).toEqual([50, 80, 20]);
  });
});
