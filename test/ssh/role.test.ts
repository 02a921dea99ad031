/** Role validation (lib/ssh/role.ts): what buildRole refuses, per key type. */
import { describe, expect, it } from 'vitest';
import { buildRole, type RoleInput } from '../../lib/ssh/role';
import { base } from './role-fixture';

describe('roles', () => {
  it.each([
    [
      'a ca role without certificate kinds',
      { allowUserCertificates: false },
      /either allow_user_certificates or allow_host_certificates must be set/,
    ],
    ['ttl above max_ttl', { ttl: 100, maxTtl: 50 }, /ttl cannot be greater than max_ttl/],
    ['a bad algorithm_signer', { algorithmSigner: 'md5' }, /invalid algorithm_signer/],
    ['an otp role without default_user', { keyType: 'otp', cidrList: ['10.0.0.0/8'] }, /missing default_user/],
    ['a dynamic role without key', { keyType: 'dynamic', adminUser: 'a', defaultUser: 'u', cidrList: ['10.0.0.0/8'] }, /missing key name/],
    [
      'a dynamic role without admin_user',
      { keyType: 'dynamic', key: 'k', defaultUser: 'u', cidrList: ['10.0.0.0/8'] },
      /missing admin_user/,
    ],
    [
      'a dynamic role without default_user',
      { keyType: 'dynamic', key: 'k', adminUser: 'a', cidrList: ['10.0.0.0/8'] },
      /missing default_user/,
    ],
    [
      'a dynamic role with key_bits 4096',
      { keyType: 'dynamic', key: 'k', adminUser: 'a', defaultUser: 'u', cidrList: ['10.0.0.0/8'], keyBits: 4096 },
      /invalid key_bits/,
    ],
    ['a bad CIDR', { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/33'] }, /invalid CIDR block "10.0.0.0\/33" in cidr_list/],
    [
      'a bad exclude CIDR',
      { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], excludeCidrList: ['x'] },
      /invalid CIDR block "x" in exclude_cidr_list/,
    ],
    ['an unknown key_type', { keyType: 'magic' }, /missing or invalid key_type/],
    [
      'a newline in key_option_specs',
      { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], keyOptionSpecs: 'a\nssh-rsa AAA' },
      /key_option_specs/,
    ],
  ] as const)('refuses %s', (_w, o, message) => {
    expect(() => buildRole({ ...base, ...(o as Partial<RoleInput>) })).toThrow(message);
  });

  // As Vault: the rule "cidr_list unless listed in config/zeroaddress" holds when credentials are
  // asked for (test/ssh/target.test.ts), since config/zeroaddress may only list existing roles.
  it.each([
    ['an otp role', { keyType: 'otp', defaultUser: 'u' }],
    ['a dynamic role', { keyType: 'dynamic', key: 'k', adminUser: 'a', defaultUser: 'u' }],
  ] as const)('accepts %s without cidr_list', (_w, o) => {
    const r = buildRole({ ...base, ...(o as Partial<RoleInput>) });
    expect(r.keyType).toBe(o.keyType);
    expect(r.cidrList).toEqual([]);
  });
});

describe('issuer_ref', () => {
  it.each([
    ['absent (a role stored before the field)', undefined, 'default'],
    ['default in any spelling', ' DEFAULT ', 'default'],
    ['empty', '', 'default'],
    ['a name, kept as written (resolved when signing)', 'ca-2026', 'ca-2026'],
    ['an id', '0f6e1b9a-2c3d-4e5f-8a9b-0c1d2e3f4a5b', '0f6e1b9a-2c3d-4e5f-8a9b-0c1d2e3f4a5b'],
  ])('a ca role takes %s', (_what, issuerRef, stored) => {
    expect(buildRole({ ...base, ...(issuerRef === undefined ? {} : { issuerRef }) }).issuerRef).toBe(stored);
  });

  it.each([
    ['a reference no issuer could have', { issuerRef: 'a b' }, /invalid issuer_ref/],
    [
      'an issuer on an otp role',
      { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], issuerRef: 'ca-2026' },
      /issuer_ref applies to ca roles only/,
    ],
  ])('refuses %s', (_what, o, message) => {
    expect(() => buildRole({ ...base, ...o })).toThrow(message);
  });

  it('an otp role keeps the default', () => {
    expect(buildRole({ ...base, keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], issuerRef: 'default' }).issuerRef).toBe(
      'default',
    );
  });
});
