/** Table tests: which policies a new token gets, and its TTL, as the reference server decides. */
import { describe, expect, it } from 'vitest';
import { resolvePolicies, type PolicyChoice } from '../../lib/sys/token-policies';
import { applyRoleInput } from '../../lib/sys/token-roles';
import { calculateTtl, humanDuration } from '../../lib/sys/token-ttl';

const role = (input: Parameters<typeof applyRoleInput>[2]) => applyRoleInput('r', undefined, input).role;
const base: PolicyChoice = { requested: undefined, noDefaultPolicy: false, role: undefined, parentPolicies: ['default', 'a', 'b'], sudo: false };

describe('resolvePolicies', () => {
  it.each<[string, Partial<PolicyChoice>, string[] | RegExp]>([
    ['inherits the parent as it is', {}, ['a', 'b', 'default']],
    ['inherits without default when the parent lacks it', { parentPolicies: ['a'] }, ['a']],
    ['a subset, default added as the parent has it', { requested: ['A '] }, ['a', 'default']],
    ['no_default_policy leaves it out', { requested: ['a'], noDefaultPolicy: true }, ['a']],
    ['outside the parent is refused', { requested: ['c'] }, /not allowed: c/],
    ['default is not handed out by a parent without it', { requested: ['default'], parentPolicies: ['a'] }, /not allowed: default/],
    ['sudo may name others', { requested: ['c'], sudo: true }, ['c', 'default']],
    ['sudo may not name root', { requested: ['root'], sudo: true }, /parent token being root/],
    ['root stands alone', { requested: ['root', 'x'], parentPolicies: ['root'], sudo: true }, ['root']],
    ['response-wrapping is never assignable', { requested: ['response-wrapping'], sudo: true }, /cannot assign policy/],
    ['role allowed: the allowed set by default', { role: role({ allowedPolicies: ['x', 'y'] }) }, ['default', 'x', 'y']],
    ['role allowed: a subset of it', { role: role({ allowedPolicies: ['x', 'y'] }), requested: ['y'] }, ['default', 'y']],
    ['role allowed glob', { role: role({ allowedPoliciesGlob: ['team-*'] }), requested: ['team-1'] }, ['default', 'team-1']],
    ['role allowed: outside refused', { role: role({ allowedPolicies: ['x'] }), requested: ['a'] }, /subset of the role's allowed/],
    ['role disallowed only: the parent set minus nothing', { role: role({ disallowedPolicies: ['z'] }) }, ['a', 'b', 'default']],
    ['role disallowed refuses', { role: role({ disallowedPolicies: ['b'] }) }, /"b" is disallowed/],
    ['role disallowed glob refuses', { role: role({ disallowedPoliciesGlob: ['*'] }), requested: ['q'] }, /is disallowed/],
    ['role disallowing default leaves it out', { role: role({ allowedPolicies: ['x'], disallowedPolicies: ['default'] }) }, ['x']],
    ['role token_no_default_policy', { role: role({ allowedPolicies: ['x'], tokenNoDefaultPolicy: true }) }, ['x']],
    ['a role without lists keeps the subset rule', { role: role({ orphan: true }), requested: ['c'] }, /not allowed: c/],
  ])('%s', (_, change, expected) => {
    const run = () => resolvePolicies({ ...base, ...change });
    if (expected instanceof RegExp) expect(run).toThrow(expected);
    else expect(run()).toEqual(expected);
  });
});

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
