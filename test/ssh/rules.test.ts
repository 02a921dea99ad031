/** Table tests of the signing and role rules (pure domain functions). */
import { describe, expect, it } from 'vitest';
import { criticalOptions, extensions } from '../../lib/ssh/cert-options';
import { ipInBlocks } from '../../lib/ssh/cidr';
import { checkKeyLength, parseKeyLengths } from '../../lib/ssh/key-lengths';
import { hostPrincipals, userPrincipals } from '../../lib/ssh/principals';
import { buildRole, type Role, type RoleInput } from '../../lib/ssh/role';
import { certKeyId, certTtl, type SignContext } from '../../lib/ssh/sign';
import { roleAcceptsIp, targetUser } from '../../lib/ssh/target';

const base: RoleInput = {
  keyType: 'ca', key: '', adminUser: '', defaultUser: '', cidrList: [], excludeCidrList: [], port: 22, keyBits: 1024, installScript: '',
  allowedUsers: [], allowedUsersTemplate: false, allowedDomains: [], keyOptionSpecs: '', ttl: 0, maxTtl: 0, allowedCriticalOptions: [],
  allowedExtensions: [], defaultCriticalOptions: {}, defaultExtensions: {}, allowUserCertificates: true, allowHostCertificates: false,
  allowBareDomains: false, allowSubdomains: false, allowUserKeyIds: false, keyIdFormat: '', allowedUserKeyLengths: {}, algorithmSigner: 'default',
};
/** Table rows are `as const` (readonly arrays); the role input takes them as they are. */
const role = (o: object): Role => buildRole({ ...base, ...(o as Partial<RoleInput>) }, { zeroAddress: false });
const ctx: SignContext = { displayName: 'token-ops', roleName: 'r', mountDefaultTtl: 3600, mountMaxTtl: 7200, nowMs: 0 };

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

describe('key id', () => {
  const key = { type: 'ssh-ed25519', bits: 256, blob: Buffer.from('k') };
  const hash = '1d2ee8c3fdc5e47297f6f2cbb66de2db3d1fd4faaa5c69b16db8ab8b7e12b0d9'.length;
  it.each([
    ['default', {}, '', /^vault-token-ops-[0-9a-f]{64}$/],
    ['format with every variable', { keyIdFormat: '{{role_name}}/{{token_display_name}}/{{public_key_hash}}' }, '', /^r\/token-ops\/[0-9a-f]{64}$/],
    ['requested when allowed', { allowUserKeyIds: true }, 'mine', /^mine$/],
  ] as const)('%s', (_w, o, requested, expected) => {
    expect(certKeyId(role(o), requested, key, ctx)).toMatch(expected);
    expect(hash).toBe(64);
  });
  it('refuses a requested key id when the role does not allow it', () => {
    expect(() => certKeyId(role({}), 'mine', key, ctx)).toThrow('setting key_id is not allowed by role');
  });
});

describe('critical options and extensions', () => {
  it.each([
    ['any requested option when the list is empty', {}, { 'force-command': 'x' }, { 'force-command': 'x' }],
    ['a listed option', { allowedCriticalOptions: ['force-command'] }, { 'force-command': 'x' }, { 'force-command': 'x' }],
    ['defaults when none are requested', { defaultCriticalOptions: { 'source-address': '10.0.0.0/8' } }, undefined, { 'source-address': '10.0.0.0/8' }],
    ['defaults, not restricted by the list', { allowedCriticalOptions: ['x'], defaultCriticalOptions: { 'force-command': 'y' } }, {}, { 'force-command': 'y' }],
  ] as const)('critical options: %s', (_w, o, requested, expected) => {
    expect(criticalOptions(role(o), requested as Record<string, string> | undefined)).toEqual(expected);
  });
  it('refuses an unlisted critical option', () => {
    expect(() => criticalOptions(role({ allowedCriticalOptions: ['force-command'] }), { 'source-address': '1.2.3.4/32', a: '' })).toThrow('critical options not on allowed list: a, source-address');
  });

  it.each([
    ['any with *', { allowedExtensions: ['*'] }, { 'permit-pty': '' }, { 'permit-pty': '' }],
    ['a listed extension', { allowedExtensions: ['permit-pty'] }, { 'permit-pty': '' }, { 'permit-pty': '' }],
    ['defaults when none are requested', { defaultExtensions: { 'permit-pty': '' } }, undefined, { 'permit-pty': '' }],
    ['defaults, not restricted by the list', { defaultExtensions: { 'permit-user-rc': '' } }, {}, { 'permit-user-rc': '' }],
  ] as const)('extensions: %s', (_w, o, requested, expected) => {
    expect(extensions(role(o), requested as Record<string, string> | undefined)).toEqual(expected);
  });
  it.each([
    ['none when the list is empty', {}, /extensions not on allowed list: permit-pty/],
    ['an unlisted one', { allowedExtensions: ['permit-X11-forwarding'] }, /extensions not on allowed list: permit-pty/],
  ])('extensions: refuses %s', (_w, o, message) => {
    expect(() => extensions(role(o), { 'permit-pty': '' })).toThrow(message);
  });
});

describe('allowed_user_key_lengths', () => {
  const rsa = (bits: number) => ({ type: 'ssh-rsa', bits, blob: Buffer.alloc(0) });
  const ec = (bits: number) => ({ type: `ecdsa-sha2-nistp${bits}`, bits, blob: Buffer.alloc(0) });
  const ed = { type: 'ssh-ed25519', bits: 256, blob: Buffer.alloc(0) };
  it.each([
    ['short name, one int', { rsa: 2048 }, rsa(2048), true],
    ['short name, wrong size', { rsa: 2048 }, rsa(3072), false],
    ['identifier, list', { 'ssh-rsa': [2048, 4096] }, rsa(4096), true],
    ['comma string', { rsa: '3072, 4096' }, rsa(3072), true],
    ['ec short name', { ec: [256, 384] }, ec(384), true],
    ['ecdsa short name, wrong curve', { ecdsa: 256 }, ec(521), false],
    ['fixed identifier ignores its value', { 'ecdsa-sha2-nistp256': 0 }, ec(256), true],
    ['ed25519 value ignored', { ed25519: 0 }, ed, true],
    ['type not listed', { rsa: 2048 }, ed, false],
    ['a JSON string', '{"ed25519":0}', ed, true],
    ['nothing listed', {}, rsa(2048), true],
  ] as const)('%s', (_w, raw, key, ok) => {
    const run = () => checkKeyLength(parseKeyLengths(raw), key);
    if (ok) expect(run).not.toThrow();
    else expect(run).toThrow(/is not allowed by role/);
  });
  it.each([
    [['rsa'], /expected an object/],
    [{ rsa: 'big' }, /invalid size for "rsa"/],
    [{ rot13: 1 }, /unknown key type "rot13"/],
    ['{nope', /expected an object/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseKeyLengths(raw)).toThrow(message);
  });
});

describe('ttl', () => {
  it.each([
    ['requested', {}, 600, 600],
    ['role ttl by default', { ttl: 900 }, undefined, 900],
    ['mount default by default', {}, undefined, 3600],
    ['defaulted ttl clamped to max_ttl', { maxTtl: 60 }, undefined, 60],
    ['requested up to the mount max', {}, 7200, 7200],
  ] as const)('%s', (_w, o, requested, expected) => {
    expect(certTtl(role(o), requested, ctx)).toBe(expected);
  });
  it.each([
    [{ maxTtl: 60 }, 61, /ttl is larger than maximum allowed \(60\)/],
    [{}, 7201, /ttl is larger than maximum allowed \(7200\)/],
  ])('refuses an explicit ttl above max_ttl', (o, requested, message) => {
    expect(() => certTtl(role(o), requested, ctx)).toThrow(message);
  });
});

describe('roles', () => {
  it.each([
    ['a ca role without certificate kinds', { allowUserCertificates: false }, /either allow_user_certificates or allow_host_certificates must be set/],
    ['ttl above max_ttl', { ttl: 100, maxTtl: 50 }, /ttl cannot be greater than max_ttl/],
    ['a bad algorithm_signer', { algorithmSigner: 'md5' }, /invalid algorithm_signer/],
    ['an otp role without default_user', { keyType: 'otp', cidrList: ['10.0.0.0/8'] }, /missing default_user/],
    ['an otp role without cidr_list', { keyType: 'otp', defaultUser: 'u' }, /missing cidr_list/],
    ['a dynamic role without key', { keyType: 'dynamic', adminUser: 'a', defaultUser: 'u', cidrList: ['10.0.0.0/8'] }, /missing key name/],
    ['a dynamic role without admin_user', { keyType: 'dynamic', key: 'k', defaultUser: 'u', cidrList: ['10.0.0.0/8'] }, /missing admin_user/],
    ['a dynamic role without default_user', { keyType: 'dynamic', key: 'k', adminUser: 'a', cidrList: ['10.0.0.0/8'] }, /missing default_user/],
    ['a dynamic role with key_bits 4096', { keyType: 'dynamic', key: 'k', adminUser: 'a', defaultUser: 'u', cidrList: ['10.0.0.0/8'], keyBits: 4096 }, /invalid key_bits/],
    ['a bad CIDR', { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/33'] }, /invalid CIDR block "10.0.0.0\/33" in cidr_list/],
    ['a bad exclude CIDR', { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], excludeCidrList: ['x'] }, /invalid CIDR block "x" in exclude_cidr_list/],
    ['an unknown key_type', { keyType: 'magic' }, /missing or invalid key_type/],
    ['a newline in key_option_specs', { keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8'], keyOptionSpecs: 'a\nssh-rsa AAA' }, /key_option_specs/],
  ] as const)('refuses %s', (_w, o, message) => {
    expect(() => buildRole({ ...base, ...(o as Partial<RoleInput>) }, { zeroAddress: false })).toThrow(message);
  });

  it('accepts an otp role without cidr_list when it is a zero-address role', () => {
    expect(buildRole({ ...base, keyType: 'otp', defaultUser: 'u' }, { zeroAddress: true }).keyType).toBe('otp');
  });
});

describe('targets of otp and dynamic credentials', () => {
  const otp = (o: object) => buildRole({ ...base, keyType: 'otp', defaultUser: 'u', cidrList: ['10.0.0.0/8', 'fd00::/8'], ...(o as Partial<RoleInput>) }, { zeroAddress: false });
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

  it('matches a bare address as a host block', () => {
    expect(ipInBlocks('10.0.0.1', ['10.0.0.1'])).toBe(true);
    expect(ipInBlocks('10.0.0.2', ['10.0.0.1'])).toBe(false);
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
