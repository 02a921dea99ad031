import { describe, expect, it } from 'vitest';
import { checkTemplates, expandAll, expandTemplate } from '../../lib/identity-template';

const who = {
  mountAccessor: 'auth_approle_1234abcd',
  mountType: 'approle',
  name: 'role-id-1',
  metadata: { role_name: 'web', team: 'ops' },
};

describe('identity templates', () => {
  it.each([
    ['{{identity.entity.aliases.auth_approle_1234abcd.name}}', 'role-id-1'],
    ['{{ identity.entity.aliases.auth_approle_1234abcd.metadata.role_name }}.svc.example.com', 'web.svc.example.com'],
    [
      '{{identity.entity.aliases.auth_approle_1234abcd.metadata.team}}-{{identity.entity.aliases.auth_approle_1234abcd.metadata.role_name}}',
      'ops-web',
    ],
    ['plain.example.com', 'plain.example.com'],
  ])('%s → %s', (template, out) => {
    expect(expandTemplate(template, who)).toBe(out);
  });

  it.each([
    ['another mount', '{{identity.entity.aliases.auth_jwt_0000.name}}', who],
    ['missing metadata', '{{identity.entity.aliases.auth_approle_1234abcd.metadata.nope}}', who],
    ['no identity (a token from auth/token)', '{{identity.entity.aliases.auth_approle_1234abcd.name}}', undefined],
    ['a value that would widen the rule', '{{identity.entity.aliases.auth_approle_1234abcd.name}}.example.com', { ...who, name: '*' }],
  ])('resolves nothing for %s', (_w, template, identity) => {
    expect(expandTemplate(template, identity)).toBeUndefined();
    expect(expandAll([template, 'kept'], identity)).toEqual(['kept']);
  });

  it.each(['{{identity.entity.name}}', '{{identity.groups.ids.x.name}}', 'a{{b', '{{identity.entity.aliases.x.metadata.}}'])(
    'refuses %j when written',
    (v) => {
      expect(() => checkTemplates([v], 'allowed_domains')).toThrow(/allowed_domains: (unsupported template|unbalanced)/);
    },
  );
});
