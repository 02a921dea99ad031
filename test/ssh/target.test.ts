/** Targets of OTP and dynamic credentials (lib/ssh/target.ts): the address against the role's blocks, the user. */
import { describe, expect, it } from 'vitest';
import { buildRole, type RoleInput } from '../../lib/ssh/role';
import { checkTargetIp, roleAcceptsIp, targetUser } from '../../lib/ssh/target';
import { base } from './role-fixture';

describe('targets of otp and dynamic credentials', () => {
  const otp = (o: object) =>
    buildRole({ ...base, keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8', 'fd00::/8'], ...(o as Partial<RoleInput>) });
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
    ['no cidr_list and not zero-address: no address', { cidrList: [] }, '10.1.2.3', false, false],
    ['no cidr_list, zero-address: any address', { cidrList: [] }, '203.0.113.9', true, true],
    ['no cidr_list, zero-address: any IPv6 address', { cidrList: [] }, '2001:db8::1', true, true],
    ['no cidr_list, zero-address: not an excluded one', { cidrList: [], excludeCidrList: ['203.0.113.0/24'] }, '203.0.113.9', true, false],
  ] as const)('lookup: %s', (_w, o, ip, zero, ok) => {
    expect(roleAcceptsIp(otp(o), ip, zero)).toBe(ok);
  });

  describe('the address of a creds request', () => {
    it.each([
      ['inside cidr_list', {}, '10.1.2.3', false, '10.1.2.3'],
      ['with blanks around it', {}, ' fd00::7 ', false, 'fd00::7'],
      ['outside cidr_list, zero-address', {}, '192.168.0.1', true, '192.168.0.1'],
      ['any address for a zero-address role without cidr_list', { cidrList: [] }, '1.2.3.4', true, '1.2.3.4'],
      ['any IPv6 address for a zero-address role without cidr_list', { cidrList: [] }, '2001:db8::1', true, '2001:db8::1'],
    ] as const)('allows %s', (_w, o, ip, zero, expected) => {
      expect(checkTargetIp(otp(o), 'r', ip, zero)).toBe(expected);
    });
    it.each([
      [
        'any address for a role without cidr_list that is not zero-address',
        { cidrList: [] },
        '10.1.2.3',
        false,
        'IP 10.1.2.3 does not belong to role "r": it has no cidr_list and is not listed in config/zeroaddress',
      ],
      ['an address outside cidr_list', {}, '192.168.0.1', false, 'IP 192.168.0.1 does not belong to role "r"'],
      [
        'an excluded address of a zero-address role',
        { cidrList: [], excludeCidrList: ['1.2.3.0/24'] },
        '1.2.3.4',
        true,
        'IP 1.2.3.4 is in the exclude_cidr_list of role "r"',
      ],
      [
        'an excluded address inside cidr_list',
        { excludeCidrList: ['10.1.0.0/16'] },
        '10.1.2.3',
        false,
        'IP 10.1.2.3 is in the exclude_cidr_list of role "r"',
      ],
      ['a malformed address', { cidrList: [] }, '1.2.3', true, 'invalid IP address "1.2.3"'],
    ] as const)('refuses %s', (_w, o, ip, zero, message) => {
      expect(() => checkTargetIp(otp(o), 'r', ip, zero)).toThrow(message);
    });
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
