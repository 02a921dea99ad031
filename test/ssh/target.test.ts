/** Targets of OTP and dynamic credentials (lib/ssh/target.ts): the address against the role's blocks, the user. */
import { describe, expect, it } from 'vitest';
import { buildRole, type RoleInput } from '../../lib/ssh/role';
import { roleAcceptsIp, targetUser } from '../../lib/ssh/target';
import { base } from './role-fixture';

describe('targets of otp and dynamic credentials', () => {
  const otp = (o: object) =>
    buildRole(
      { ...base, keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8', 'fd00::/8'], ...(o as Partial<RoleInput>) },
      { zeroAddress: false },
    );
  it.each([
    ['inside cidr_list', {}, '10.1.2.3', false, true],
    ['IPv6 inside', {}, 'fd00::1', false, true],
    ['outside', {}, '192.168.0.1', false, false],
    ['inside but excluded', { excludeCidrList: ['10.1.0.0/16'] }, '10.1.2.3', false, false],
    ['zero-address accepts any', {}, '192.168.0.1', true, true],
    ['zero-address still honours exclusions', { excludeCidrList: ['192.168.0.0/16'] }, '192.168.0.1', true, false],
  ] as const)('%s', (_w, o, ip, zero, ok) => {
    expect(roleAcceptsIp(otp(o), ip, zero)).toBe(ok);
  });

  it.each([
    ['the default user', {}, '', 'u'],
    ['anyone with no allowed_users', {}, 'x', 'x'],
    ['a listed user', { allowedUsers: ['x'] }, 'x', 'x'],
    ['the default user beside a list', { allowedUsers: ['x'] }, 'u', 'u'],
  ] as const)('allows %s', (_w, o, user, expected) => {
    expect(targetUser(otp(o), user)).toBe(expected);
  });
  it.each([
    ['an unlisted user', { allowedUsers: ['x'] }, 'y', /username "y" is not allowed by role/],
    ['a user name with shell characters', {}, "a';rm -rf /", /invalid username/],
  ] as const)('refuses %s', (_w, o, user, message) => {
    expect(() => targetUser(otp(o), user)).toThrow(message);
  });
});
