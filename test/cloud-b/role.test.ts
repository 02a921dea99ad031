/** Role input (lib/cloud-b/role.ts): remote and inline policies, and the checks of a whole role, before any cloud call. */
import { describe, expect, it } from 'vitest';
import { checkRole, parseInlinePolicies, parseRemotePolicies, regroupRemote, type Role } from '../../lib/cloud-b/role';

describe('remote policies', () => {
  it.each([
    [['name:A'], /policy type is required/],
    [['type:System'], /policy name is required/],
    [['name:A,type:Managed'], /unknown policy type "Managed": expected System or Custom/],
    [['name:A,colour:red'], /invalid key "colour"/],
    [['name:A:B,type:System'], /unable to recognize pair/],
    [['name:a b,type:System'], /invalid policy name/],
  ])('refuses %j', (entries, message) => {
    expect(() => parseRemotePolicies(entries)).toThrow(message);
  });

  it('reads a name and a type in either order', () => {
    expect(parseRemotePolicies(['type:Custom,name:ops-read', 'name:AliyunOSSReadOnlyAccess,type:System'])).toEqual([
      { name: 'ops-read', type: 'Custom' },
      { name: 'AliyunOSSReadOnlyAccess', type: 'System' },
    ]);
  });

  it('reassembles "name:x,type:y" split by the list field', () => {
    expect(regroupRemote(['name:A', 'type:System', 'name:B', 'type:Custom'])).toEqual(['name:A,type:System', 'name:B,type:Custom']);
  });
});

describe('inline policies', () => {
  it('takes one document or a list, and blank as none', () => {
    expect(parseInlinePolicies('')).toEqual([]);
    const one = parseInlinePolicies('{"Version":"1","Statement":[]}');
    expect(one).toHaveLength(1);
    expect(one[0]!.policyDocument).toEqual({ Version: '1', Statement: [] });
    expect(one[0]!.hash).toMatch(/^[0-9a-f]{32}$/);
    const two = parseInlinePolicies([{ Version: '1' }, { Version: '1' }]);
    expect(two).toHaveLength(2);
    expect(two[0]!.hash).not.toBe(two[1]!.hash);
  });
  it.each([
    ['{nope', /inline_policies: not valid JSON/],
    ['[1]', /document 0 is not a JSON object/],
    ['[{"a":1},[]]', /document 1 is not a JSON object/],
  ])('refuses %s', (raw, message) => {
    expect(() => parseInlinePolicies(raw)).toThrow(message);
  });
});

describe('a whole role', () => {
  const role = (o: Partial<Role>): Role => ({ remotePolicies: [], inlinePolicies: [], roleArn: '', ttl: 0, maxTtl: 0, ...o }) as Role;
  const remote = [{ name: 'A', type: 'System' }];
  it('accepts policies alone, or an arn alone', () => {
    expect(() => checkRole(role({ remotePolicies: remote }))).not.toThrow();
    expect(() => checkRole(role({ roleArn: 'acs:ram::123456789:role/ops' }))).not.toThrow();
  });
  it.each([
    ['nothing to grant', {}, /must include an arn, or at least one of inline_policies or remote_policies/],
    ['ttl above max_ttl', { remotePolicies: remote, ttl: 20, maxTtl: 10 }, /ttl exceeds max_ttl/],
    ['a malformed arn', { roleArn: 'arn:aws:iam::1:role/x' }, /role_arn: expected acs:ram::<account id>:role\/<role name>/],
    [
      'an arn beside remote policies',
      { roleArn: 'acs:ram::1:role/x', remotePolicies: remote },
      /remote_policies must be blank when an arn is present/,
    ],
  ] as const)('refuses %s', (_w, o, message) => {
    expect(() => checkRole(role(o as Partial<Role>))).toThrow(message);
  });
});
