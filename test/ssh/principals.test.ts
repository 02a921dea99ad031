/** valid_principals of user and host certificates (lib/ssh/principals.ts), as tables. */
import { describe, expect, it } from 'vitest';
import { hostPrincipals, userPrincipals } from '../../lib/ssh/principals';
import { ctx, role } from './role-fixture';

const caller = { ...ctx, identity: { mountAccessor: 'auth_jwt_1', mountType: 'jwt', name: 'alice', metadata: { team: 'ops' } } };

describe('valid_principals of user certificates', () => {
  it.each([
    ['any user with *', { allowedUsers: ['*'] }, ['root'], ['root']],
    ['listed users', { allowedUsers: ['a', 'b'] }, ['a', 'b'], ['a', 'b']],
    ['the default user when none is requested', { allowedUsers: ['a'], defaultUser: 'a' }, [], ['a']],
    [
      'a template of the login name',
      { allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}-admin'], allowedUsersTemplate: true },
      ['alice-admin'],
      ['alice-admin'],
    ],
    [
      'a template of login metadata',
      { allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.metadata.team}}'], allowedUsersTemplate: true },
      ['ops'],
      ['ops'],
    ],
    [
      'a plain user beside templates',
      { allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}', 'ci'], allowedUsersTemplate: true },
      ['ci'],
      ['ci'],
    ],
    [
      'a templated default user',
      {
        allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}'],
        allowedUsersTemplate: true,
        defaultUser: '{{identity.entity.aliases.auth_jwt_1.name}}',
        defaultUserTemplate: true,
      },
      [],
      ['alice'],
    ],
  ] as const)('allows %s', (_w, o, requested, expected) => {
    expect(userPrincipals(role(o), [...requested], caller)).toEqual(expected);
  });

  it.each([
    ['anyone with an empty allowed_users', { allowedUsers: [] }, ['a'], /a is not a valid value/],
    ['an unlisted user', { allowedUsers: ['a'] }, ['a', 'z'], /z is not a valid value/],
    ['empty principals without a default user', { allowedUsers: ['*'] }, [], /empty valid principals not allowed by role/],
    ['a default user outside allowed_users', { allowedUsers: ['a'], defaultUser: 'b' }, [], /b is not a valid value/],
    [
      'a template when templates are off',
      { allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}'] },
      ['alice'],
      /alice is not a valid value/,
    ],
    [
      'a template of another mount',
      { allowedUsers: ['{{identity.entity.aliases.auth_other.name}}'], allowedUsersTemplate: true },
      ['alice'],
      /alice is not a valid value/,
    ],
    [
      'missing metadata',
      { allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.metadata.x}}'], allowedUsersTemplate: true },
      [''],
      /is not a valid value|empty/,
    ],
  ] as const)('refuses %s', (_w, o, requested, message) => {
    expect(() => userPrincipals(role(o), [...requested], caller)).toThrow(message);
  });

  it('resolves nothing for a token without a login identity (auth/token, root)', () => {
    const r = role({ allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}'], allowedUsersTemplate: true });
    expect(() => userPrincipals(r, ['alice'], ctx)).toThrow(/alice is not a valid value/);
  });

  it('resolves nothing when the identity would widen the rule ("*" from a claim)', () => {
    const r = role({ allowedUsers: ['{{identity.entity.aliases.auth_jwt_1.name}}'], allowedUsersTemplate: true });
    expect(() => userPrincipals(r, ['root'], { ...caller, identity: { ...caller.identity!, name: '*' } })).toThrow(
      /root is not a valid value/,
    );
  });

  it.each([
    [
      'an entity name',
      { allowedUsers: ['{{identity.entity.name}}'], allowedUsersTemplate: true },
      /unsupported template "\{\{identity.entity.name\}\}"/,
    ],
    ['a group', { allowedUsers: ['{{identity.groups.names.x.id}}'], allowedUsersTemplate: true }, /unsupported template/],
    ['unbalanced braces', { allowedUsers: ['{{identity.entity.aliases.a.name}'], allowedUsersTemplate: true }, /unbalanced|unsupported/],
    [
      'templates on an otp role',
      { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], allowedUsersTemplate: true },
      /apply to ca roles only/,
    ],
  ] as const)('refuses a role with %s when written', (_w, o, message) => {
    expect(() => role(o)).toThrow(message);
  });
});

describe('valid_principals of host certificates', () => {
  const hosts = (o: object) => role({ allowHostCertificates: true, allowUserCertificates: false, ...o });
  it.each([
    ['*', { allowedDomains: ['*'] }, 'anything.org', true],
    ['bare domain allowed', { allowedDomains: ['example.com'], allowBareDomains: true }, 'example.com', true],
    ['bare domain refused', { allowedDomains: ['example.com'], allowSubdomains: true }, 'example.com', false],
    ['subdomain allowed', { allowedDomains: ['example.com'], allowSubdomains: true }, 'a.example.com', true],
    ['subdomain refused', { allowedDomains: ['example.com'], allowBareDomains: true }, 'a.example.com', false],
    ['suffix that is not a subdomain', { allowedDomains: ['example.com'], allowSubdomains: true }, 'badexample.com', false],
    ['case-insensitive', { allowedDomains: ['Example.COM'], allowSubdomains: true }, 'WEB.example.com', true],
    ['empty list allows none', { allowedDomains: [] }, 'example.com', false],
  ] as const)('%s: %s', (_w, o, host, ok) => {
    const run = () => hostPrincipals(hosts(o), [host]);
    if (ok) expect(run()).toEqual([host]);
    else expect(run).toThrow(`${host} is not a valid value for valid_principals`);
  });

  it('refuses empty principals', () => {
    expect(() => hostPrincipals(hosts({ allowedDomains: ['*'] }), [])).toThrow('empty valid principals not allowed by role');
  });
});
