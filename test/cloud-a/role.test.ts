/** cloud_a_roles and cloud_a_groups (lib/cloud-a/role.ts parseRoles, parseGroups): what a role write accepts, before any cloud call. */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { parseGroups, parseRoles } from '../../lib/cloud-a/role';

describe('parsing cloud_a_roles and cloud_a_groups', () => {
  it.each([
    ['not json', /not valid JSON/],
    ['{"scope":"/x"}', /expected a JSON array/],
    ['[1]', /entry 0 is not an object/],
    ['[{"role_name":"Reader"}]', /entry 0 needs a "scope"/],
    ['[{"scope":"/subscriptions/x"}]', /entry 0 needs "role_name" or "role_id"/],
    ['[{"scope":"no-slash","role_name":"Reader"}]', /entry 0 has an invalid "scope"/],
    ['[{"scope":"/s","role_name":5}]', /entry 0 has an invalid "role_name"/],
    [JSON.stringify(Array.from({ length: 51 }, () => ({ scope: '/s', role_name: 'r' }))), /at most 50 entries/],
  ])('refuses cloud_a_roles %s', (raw, message) => {
    expect(() => parseRoles(raw)).toThrow(message);
  });

  it('accepts a JSON string or an array, and an empty string as none', () => {
    expect(parseRoles('[{"scope":"/s","role_id":"/s/providers/Microsoft.Authorization/roleDefinitions/1"}]')).toHaveLength(1);
    expect(parseRoles([{ scope: '/s', role_name: 'Reader' }])).toEqual([{ scope: '/s', roleName: 'Reader', roleId: '' }]);
    expect(parseRoles('')).toEqual([]);
    expect(parseGroups('[{"object_id":"abc-1"},{"group_name":"ops"}]')).toEqual([
      { objectId: 'abc-1', groupName: '' },
      { objectId: '', groupName: 'ops' },
    ]);
    expect(() => parseGroups('[{}]')).toThrow(/needs "group_name" or "object_id"/);
  });

  it("names the field the client used (the reference plugin's azure_roles / azure_groups)", () => {
    expect(() => parseRoles('[{"scope":"/s"}]', 'azure_roles')).toThrow(/^azure_roles: entry 0 needs "role_name" or "role_id"/);
    expect(() => parseGroups('[{}]', 'azure_groups')).toThrow(/^azure_groups: entry 0 needs/);
  });

  it('takes a blank string as none, and refuses control characters and odd ids with an InvalidInput', () => {
    expect(parseGroups('  ')).toEqual([]);
    expect(() => parseRoles(undefined)).toThrow(/expected a JSON array of objects/);
    expect(() => parseRoles([{ scope: '/s', role_name: 'a\u0000b' }])).toThrow(InvalidInput);
    expect(() => parseGroups([{ object_id: 'not/an id' }])).toThrow(/entry 0 has an invalid "object_id"/);
    expect(() => parseGroups('[[]]')).toThrow(/entry 0 is not an object/);
  });
});
