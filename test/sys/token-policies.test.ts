/** Table tests: which policies a new token gets, as the reference server decides. */
import { describe, expect, it } from 'vitest';
import { resolvePolicies, type PolicyChoice } from '../../lib/sys/token-policies';
import { applyRoleInput } from '../../lib/sys/token-roles';

const role = (input: Parameters<typeof applyRoleInput>[2]) => applyRoleInput('r', undefined, input).role;
const base: PolicyChoice = {
  requested: undefined,
  noDefaultPolicy: false,
  role: undefined,
  parentPolicies: ['default', 'a', 'b'],
  sudo: false,
};

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
