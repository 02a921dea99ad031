/** valid_principals of user and host certificates (lib/ssh/principals.ts), as tables. */
import { describe, expect, it } from 'vitest';
import { hostPrincipals, userPrincipals } from '../../lib/ssh/principals';
import { ctx, role } from './role-fixture';

describe('valid_principals of user certificates', () => {
  it.each([
    ['any user with *', { allowedUsers: ['*'] }, ['root'], ['root']],
    ['listed users', { allowedUsers: ['a', 'b'] }, ['a', 'b'], ['a', 'b']],
    ['the default user when none is requested', { allowedUsers: ['a'], defaultUser: 'a' }, [], ['a']],
    ['a template of the caller name', { allowedUsers: ['{{identity.entity.name}}-admin'], allowedUsersTemplate: true }, ['token-ops-admin'], ['token-ops-admin']],
    ['a plain user beside templates', { allowedUsers: ['{{identity.entity.name}}', 'ci'], allowedUsersTemplate: true }, ['ci'], ['ci']],
  ] as const)('allows %s', (_w, o, requested, expected) => {
    expect(userPrincipals(role(o), [...requested], ctx)).toEqual(expected);
  });

  it.each([
    ['anyone with an empty allowed_users', { allowedUsers: [] }, ['a'], /a is not a valid value/],
    ['an unlisted user', { allowedUsers: ['a'] }, ['a', 'z'], /z is not a valid value/],
    ['empty principals without a default user', { allowedUsers: ['*'] }, [], /empty valid principals not allowed by role/],
    ['a default user outside allowed_users', { allowedUsers: ['a'], defaultUser: 'b' }, [], /b is not a valid value/],
    ['a template when templates are off', { allowedUsers: ['{{identity.entity.name}}'] }, ['token-ops'], /token-ops is not a valid value/],
    ['an unresolvable template', { allowedUsers: ['{{identity.entity.metadata.x}}'], allowedUsersTemplate: true }, [''], /is not a valid value|empty/],
  ] as const)('refuses %s', (_w, o, requested, message) => {
    expect(() => userPrincipals(role(o), [...requested], ctx)).toThrow(message);
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
