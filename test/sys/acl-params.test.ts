/** Table tests: parameter constraints decided on the values the handler will use (lib/sys/acl-params.ts). */
import { describe, expect, it } from 'vitest';
import { paramsAsSent, parametersAllowed } from '../../lib/sys/acl-params';
import { parsePolicy, type Permissions } from '../../lib/sys/policy-rules';
import type { AccessParam } from '../../lib/types';

/** The permissions of one rule on `x`. */
function rule(constraints: Record<string, unknown>): Permissions {
  return parsePolicy({ path: { x: { capabilities: ['update'], ...constraints } } }).rules[0]!;
}

const list = (name: string, value: string[], extra: Partial<AccessParam> = {}): AccessParam => ({
  names: [name],
  value,
  kind: 'list',
  ...extra,
});

describe('lists: every element allowed, none denied', () => {
  const denyRoot = rule({ denied_parameters: { valid_principals: ['root'] } });
  const deployOnly = rule({ allowed_parameters: { valid_principals: ['deploy-*'] } });

  it.each([
    [['root'], false],
    [['deploy', 'root'], false],
    [['deploy'], true],
    [[], true],
  ])('denied root, %j sent: %s', (value, ok) => {
    expect(parametersAllowed(denyRoot, [list('valid_principals', value)])).toBe(ok);
  });

  it.each([
    [['deploy-a'], true],
    [['deploy-a', 'deploy-b'], true],
    [['deploy-a', 'root'], false],
    [['root'], false],
    // Empty is checked as "" (what the reference sees sent): not a deploy-* principal.
    [[], false],
  ])('allowed deploy-*, %j sent: %s', (value, ok) => {
    expect(parametersAllowed(deployOnly, [list('valid_principals', value)])).toBe(ok);
  });

  it('a whole list equal to an allowed entry is allowed, as the reference compares it', () => {
    expect(parametersAllowed(rule({ allowed_parameters: { n: [['a', 'b']] } }), [list('n', ['a', 'b'])])).toBe(true);
  });

  it('a raw array sent to an undeclared parameter is checked element by element too', () => {
    expect(parametersAllowed(rule({ denied_parameters: { n: ['b'] } }), paramsAsSent({ n: ['a', 'b'] }))).toBe(false);
  });
});

describe('kinds', () => {
  it.each([
    ['a duration denied as "1h", 3600 sent', { denied_parameters: { ttl: ['1h'] } }, 3600, false],
    ['a duration denied as 3600, "60m" coerced to 3600', { denied_parameters: { ttl: [3600] } }, 3600, false],
    ['a duration allowed up to a list, 120 sent', { allowed_parameters: { ttl: ['1m', '2m'] } }, 120, true],
    ['a duration not in the list', { allowed_parameters: { ttl: ['1m', '2m'] } }, 180, false],
  ])('%s', (_label, constraints, value, ok) => {
    expect(parametersAllowed(rule(constraints), [{ names: ['ttl'], value, kind: 'duration' }])).toBe(ok);
  });

  it.each([
    ['a boolean denied as "true", true sent', { denied_parameters: { b: ['true'] } }, true, false],
    ['a boolean denied as true, false sent', { denied_parameters: { b: [true] } }, false, true],
    ['a boolean allowed as "f", false sent', { allowed_parameters: { b: ['f'] } }, false, true],
  ])('%s', (_label, constraints, value, ok) => {
    expect(parametersAllowed(rule(constraints), [{ names: ['b'], value, kind: 'bool' }])).toBe(ok);
  });

  it('an integer compares as an integer', () => {
    expect(parametersAllowed(rule({ denied_parameters: { n: ['5'] } }), [{ names: ['n'], value: 5, kind: 'int' }])).toBe(false);
    expect(parametersAllowed(rule({ allowed_parameters: { n: [5] } }), [{ names: ['n'], value: 6, kind: 'int' }])).toBe(false);
  });

  it('a map is checked entry by entry (key=value); an object in a rule is refused when the policy is written', () => {
    const meta = (value: Record<string, string>): AccessParam[] => [{ names: ['meta'], value, kind: 'map' }];
    expect(parametersAllowed(rule({ denied_parameters: { meta: ['env=prod'] } }), meta({ team: 'a', env: 'prod' }))).toBe(false);
    expect(() => rule({ denied_parameters: { meta: [{ env: 'prod' }] } })).toThrow(/a map entry as "key=value"/);
    expect(parametersAllowed(rule({ denied_parameters: { meta: ['env=prod'] } }), meta({ env: 'dev' }))).toBe(true);
    expect(parametersAllowed(rule({ allowed_parameters: { meta: ['team=*'] } }), meta({ team: 'a' }))).toBe(true);
    expect(parametersAllowed(rule({ allowed_parameters: { meta: ['team=*'] } }), meta({ team: 'a', env: 'prod' }))).toBe(false);
  });

  it('lower-case comparison where the handler ignores case (DNS names)', () => {
    const cn = (value: string): AccessParam[] => [{ names: ['common_name'], value, kind: 'string', compareAs: 'lower-case' }];
    const denied = rule({ denied_parameters: { common_name: ['www.example.com', '*.internal.example.com'] } });
    expect(parametersAllowed(denied, cn('WWW.Example.COM'))).toBe(false);
    expect(parametersAllowed(denied, cn('db.INTERNAL.example.com'))).toBe(false);
    expect(parametersAllowed(denied, cn('api.example.com'))).toBe(true);
  });

  it('addresses in canonical form (IPv6 spellings, CIDR prefixes)', () => {
    const ips = (value: string[]): AccessParam[] => [{ names: ['ip_sans'], value, kind: 'list', compareAs: 'address' }];
    const denied = rule({ denied_parameters: { ip_sans: ['::1', '10.0.0.0/8'] } });
    expect(parametersAllowed(denied, ips(['0:0:0:0:0:0:0:1']))).toBe(false);
    expect(parametersAllowed(denied, ips(['0::1']))).toBe(false);
    expect(parametersAllowed(denied, ips(['10.0.0.0/08']))).toBe(false);
    expect(parametersAllowed(denied, ips(['::2']))).toBe(true);
  });
});

describe('aliases', () => {
  const policies = (name: string, value: string[]): AccessParam => ({ names: [name, 'token_policies'], value, kind: 'list' });

  it('a rule on the field holds on its alias', () => {
    const denied = rule({ denied_parameters: { token_policies: ['admin'] } });
    expect(parametersAllowed(denied, [policies('policies', ['admin'])])).toBe(false);
    expect(parametersAllowed(denied, [policies('policies', ['dev'])])).toBe(true);
  });

  it('the alias name itself must still be allowed by name', () => {
    const allowed = rule({ allowed_parameters: { token_policies: ['dev'] } });
    expect(parametersAllowed(allowed, [policies('policies', ['dev'])])).toBe(false);
    const both = rule({ allowed_parameters: { token_policies: ['dev'], policies: [] } });
    expect(parametersAllowed(both, [policies('policies', ['dev'])])).toBe(true);
    expect(parametersAllowed(both, [policies('policies', ['admin'])])).toBe(false);
  });

  it('a required field is satisfied by its alias', () => {
    expect(parametersAllowed(rule({ required_parameters: ['token_policies'] }), [policies('policies', ['dev'])])).toBe(true);
  });
});
