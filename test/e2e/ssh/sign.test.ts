import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { tokenWith } from '../../helpers/service';
import { certInfo, field, keygen, section, tempDir } from '../../helpers/ssh-keys';
import { call, generateCa, sign, sshService, writeRole } from './setup';

let svc: TestService;
const dir = tempDir();
let caLine: string;

beforeAll(async () => {
  svc = await sshService();
  caLine = await generateCa(svc, { key_type: 'ed25519' });
  await writeRole(svc, 'users', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: 'alice,bob',
    default_user: 'alice',
    allowed_extensions: 'permit-pty,permit-port-forwarding',
    default_extensions: { 'permit-pty': '' },
    ttl: '30m',
    max_ttl: '2h',
  });
  await writeRole(svc, 'hosts', {
    key_type: 'ca',
    allow_host_certificates: true,
    allowed_domains: 'example.com',
    allow_subdomains: true,
    allow_bare_domains: true,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const caFingerprintType = () => caLine.split(' ')[0];

describe('sign/<role>: user certificates read by ssh-keygen -L', () => {
  it.each(['ed25519', 'ecdsa', 'rsa'] as const)('signs a %s key with the role defaults', async (type) => {
    const k = keygen(dir, type, type === 'rsa' ? 3072 : undefined);
    const r = await sign(svc, 'users', { public_key: k.pubText });
    expect(r.status).toBe(200);
    expect(r.json!.lease_id).toMatch(/^ssh\/sign\/users\//);
    expect(r.json!.lease_duration).toBe(1800);
    const { serial_number: serial, signed_key: cert } = r.json!.data as { serial_number: string; signed_key: string };
    expect(serial).toMatch(/^[0-9a-f]{1,16}$/);
    expect(cert.endsWith('\n')).toBe(true);
    const info = certInfo(cert);
    expect(field(info, 'Type')).toMatch(/user certificate$/);
    expect(field(info, 'Signing CA')).toMatch(new RegExp(`^ED25519 SHA256:\\S+ \\(using ${caFingerprintType()}\\)$`));
    expect(BigInt(field(info, 'Serial'))).toBe(BigInt(`0x${serial}`));
    expect(field(info, 'Key ID')).toMatch(/^"vault-root-[0-9a-f]{64}"$/);
    expect(section(info, 'Principals')).toEqual(['alice']);
    expect(section(info, 'Critical Options')).toEqual([]);
    expect(section(info, 'Extensions')).toEqual(['permit-pty']);
    const [from, to] = field(info, 'Valid')
      .replace(/^from /, '')
      .split(' to ')
      .map((t) => Date.parse(t));
    expect(to! - from!).toBe((1800 + 30) * 1000);
  });

  it.each([
    ['2h', 7200],
    ['0', 0],
    [45, 45],
  ] as const)('backdates ValidAfter by the role not_before_duration %s', async (nbd, seconds) => {
    await writeRole(svc, 'backdated', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      default_user: 'alice',
      not_before_duration: nbd,
    });
    expect((await call(svc.app, 'GET', '/v1/ssh/roles/backdated', { token: svc.root })).json!.data.not_before_duration).toBe(seconds);
    const r = await sign(svc, 'backdated', { public_key: keygen(dir, 'ed25519').pubText, ttl: '10m' });
    expect(r.status).toBe(200);
    const [from, to] = field(certInfo(r.json!.data.signed_key), 'Valid')
      .replace(/^from /, '')
      .split(' to ')
      .map((t) => Date.parse(t));
    expect(to! - from!).toBe((600 + seconds) * 1000);
  });

  it('refuses a not_before_duration that is not a duration', async () => {
    const r = await call(svc.app, 'POST', '/v1/ssh/roles/badnbd', {
      token: svc.root,
      body: { key_type: 'ca', allow_user_certificates: true, not_before_duration: 'soon' },
    });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/field "not_before_duration"/);
  });

  it('puts requested principals, critical options, extensions and key id in the certificate', async () => {
    await writeRole(svc, 'free', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      allowed_extensions: '*',
      allow_user_key_ids: true,
    });
    const k = keygen(dir, 'ed25519');
    const r = await sign(svc, 'free', {
      public_key: k.pubText,
      valid_principals: 'carol,dave',
      key_id: 'ticket-42',
      ttl: '10m',
      critical_options: { 'force-command': '/bin/true', 'source-address': '10.0.0.0/8,127.0.0.1/32' },
      extensions: { 'permit-X11-forwarding': '', 'permit-agent-forwarding': '' },
    });
    expect(r.status).toBe(200);
    const info = certInfo(r.json!.data.signed_key);
    expect(section(info, 'Principals')).toEqual(['carol', 'dave']);
    expect(field(info, 'Key ID')).toBe('"ticket-42"');
    expect(section(info, 'Critical Options')).toEqual(['force-command /bin/true', 'source-address 10.0.0.0/8,127.0.0.1/32']);
    expect(section(info, 'Extensions')).toEqual(['permit-X11-forwarding', 'permit-agent-forwarding']);
    expect(r.json!.lease_duration).toBe(600);
  });

  it('formats the key id from key_id_format and the caller display name', async () => {
    await writeRole(svc, 'fmt', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      key_id_format: 'custom-{{role_name}}-{{token_display_name}}-{{public_key_hash}}',
    });
    await call(svc.app, 'PUT', '/v1/sys/policy/signer', {
      token: svc.root,
      body: { policy: JSON.stringify({ path: { 'ssh/sign/*': { capabilities: ['update'] } } }) },
    });
    const token = await tokenWith(svc, ['signer'], { display_name: 'ops' });
    const k = keygen(dir, 'ed25519');
    const r = await sign(svc, 'fmt', { public_key: k.pubText, valid_principals: 'x' }, token);
    expect(r.status).toBe(200);
    expect(field(certInfo(r.json!.data.signed_key), 'Key ID')).toMatch(
      /^"custom-fmt-token-ops-[0-9a-f]{64}"$|^"custom-fmt-ops-[0-9a-f]{64}"$/,
    );
  });
});

describe('sign/<role>: host certificates', () => {
  it.each([['example.com'], ['web.example.com'], ['a.b.example.com']])('signs %s', async (host) => {
    const k = keygen(dir, 'ed25519');
    const r = await sign(svc, 'hosts', { public_key: k.pubText, cert_type: 'host', valid_principals: host });
    expect(r.status).toBe(200);
    const info = certInfo(r.json!.data.signed_key);
    expect(field(info, 'Type')).toMatch(/host certificate$/);
    expect(section(info, 'Principals')).toEqual([host]);
    expect(section(info, 'Extensions')).toEqual([]);
  });

  it('refuses a host outside allowed_domains and a user certificate on a host-only role', async () => {
    const k = keygen(dir, 'ed25519');
    const bad = await sign(svc, 'hosts', { public_key: k.pubText, cert_type: 'host', valid_principals: 'example.org' });
    expect(bad).toMatchObject({ status: 400, json: { errors: ['example.org is not a valid value for valid_principals'] } });
    const user = await sign(svc, 'hosts', { public_key: k.pubText, valid_principals: 'alice' });
    expect(user).toMatchObject({ status: 400, json: { errors: ['user certificates are not allowed by role'] } });
  });
});

describe('sign/<role>: CA kinds and signature algorithms', () => {
  it.each([
    [{ key_type: 'rsa', key_bits: 2048 }, '', 'rsa-sha2-256'],
    [{ key_type: 'rsa', key_bits: 2048 }, 'rsa-sha2-512', 'rsa-sha2-512'],
    [{ key_type: 'rsa', key_bits: 2048 }, 'ssh-rsa', 'ssh-rsa'],
    [{ key_type: 'ec', key_bits: 384 }, '', 'ecdsa-sha2-nistp384'],
    [{ key_type: 'ec', key_bits: 521 }, 'default', 'ecdsa-sha2-nistp521'],
  ])(
    'CA %j with algorithm_signer "%s" signs with %s',
    async (ca, signer, expected) => {
      const s = await sshService();
      await generateCa(s, ca);
      await writeRole(s, 'r', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', algorithm_signer: signer });
      const r = await sign(s, 'r', { public_key: keygen(dir, 'ed25519').pubText, valid_principals: 'u' });
      expect(r.status).toBe(200);
      expect(field(certInfo(r.json!.data.signed_key), 'Signing CA')).toMatch(new RegExp(`\\(using ${expected}\\)$`));
    },
    30_000,
  );

  it('refuses an RSA algorithm_signer with a non-RSA CA, at signing', async () => {
    await writeRole(svc, 'rsa-only', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      algorithm_signer: 'rsa-sha2-512',
    });
    const r = await sign(svc, 'rsa-only', { public_key: keygen(dir, 'ed25519').pubText, valid_principals: 'u' });
    expect(r).toMatchObject({ status: 400, json: { errors: ['algorithm_signer rsa-sha2-512 is not compatible with the CA key type'] } });
  });
});

describe('sign/<role>: bad input', () => {
  const good = () => keygen(dir, 'ed25519').pubText;
  it.each([
    ['an unknown role', 'nope', () => ({ public_key: good() }), /unknown role: nope/],
    ['a missing public key', 'users', () => ({}), /missing required field "public_key"/],
    ['a malformed public key', 'users', () => ({ public_key: 'ssh-ed25519 AAAA@@@' }), /public_key is not a valid SSH public key/],
    [
      'a private key as public key',
      'users',
      () => ({ public_key: keygen(dir, 'ed25519').privText }),
      /public_key is not a valid SSH public key/,
    ],
    ['a DSA key', 'users', () => ({ public_key: keygen(dir, 'dsa').pubText }), /unsupported public key type ssh-dss/],
    [
      'a 1024-bit RSA key',
      'users',
      () => ({ public_key: keygen(dir, 'rsa', 1024).pubText }),
      /RSA public keys shorter than 2048 bits are refused/,
    ],
    [
      'a principal outside allowed_users',
      'users',
      () => ({ public_key: good(), valid_principals: 'mallory' }),
      /mallory is not a valid value for valid_principals/,
    ],
    ['a ttl above max_ttl', 'users', () => ({ public_key: good(), ttl: '3h' }), /ttl is larger than maximum allowed \(7200\)/],
    [
      'a disallowed extension',
      'users',
      () => ({ public_key: good(), extensions: { 'permit-user-rc': '' } }),
      /extensions not on allowed list: permit-user-rc/,
    ],
    ['a key id the role does not allow', 'users', () => ({ public_key: good(), key_id: 'mine' }), /setting key_id is not allowed by role/],
    ['a bad cert_type', 'users', () => ({ public_key: good(), cert_type: 'both' }), /cert_type must be "user" or "host"/],
    ['a bad ttl', 'users', () => ({ public_key: good(), ttl: 'soon' }), /field "ttl": expected a duration/],
    ['critical options of the wrong type', 'users', () => ({ public_key: good(), critical_options: ['a'] }), /field "critical_options"/],
    [
      'an invalid source-address',
      'users',
      () => ({ public_key: good(), critical_options: { 'source-address': '10.0.0.300/8' } }),
      /invalid CIDR block "10.0.0.300\/8" in source-address/,
    ],
  ])('refuses %s', async (_what, role, body, message) => {
    const r = await sign(svc, role, body());
    expect(r.status).toBe(400);
    expect(r.json!.errors.join(' ')).toMatch(message);
  });

  it('refuses signing when no CA is configured', async () => {
    const s = await sshService();
    await writeRole(s, 'r', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    const r = await sign(s, 'r', { public_key: good(), valid_principals: 'u' });
    expect(r).toMatchObject({ status: 400, json: { errors: ['no CA key is configured on this mount (config/ca)'] } });
  });

  it('refuses signing with an otp role', async () => {
    await writeRole(svc, 'otp1', { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8' });
    const r = await sign(svc, 'otp1', { public_key: good() });
    expect(r).toMatchObject({ status: 400, json: { errors: ['role is not of key_type ca'] } });
  });
});
