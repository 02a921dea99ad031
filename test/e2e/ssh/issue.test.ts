/** issue/<role>: the server generates the key pair and signs it; read back with ssh-keygen. */
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { certInfo, field, section, tempDir } from '../../helpers/ssh-keys';
import { call, generateCa, sshService, writeRole } from './setup';

let svc: TestService;
const dir = tempDir();

beforeAll(async () => {
  svc = await sshService();
  await generateCa(svc, { key_type: 'ed25519' });
  await writeRole(svc, 'users', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: 'alice,bob',
    default_user: 'alice',
    ttl: '30m',
    max_ttl: '2h',
  });
  await writeRole(svc, 'otp', { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const issue = (role: string, body: Record<string, unknown>) => call(svc.app, 'POST', `/v1/ssh/issue/${role}`, { token: svc.root, body });

/** The public key line ssh-keygen derives from a private key file. */
function publicOf(privateKey: string): string {
  const file = join(dir, `k-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, privateKey);
  chmodSync(file, 0o600);
  return execFileSync('ssh-keygen', ['-y', '-f', file], { encoding: 'utf8' }).trim();
}

/** The fingerprint ssh-keygen prints for a key line (certificate or plain public key). */
function fingerprint(line: string): string {
  const file = join(dir, `p-${Math.random().toString(36).slice(2)}.pub`);
  writeFileSync(file, line);
  return execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' }).split(' ')[1]!;
}

describe('issue/<role>', () => {
  it.each([
    [{ key_type: 'ed25519' }, 'ssh-ed25519', /^-----BEGIN OPENSSH PRIVATE KEY-----/, 'ED25519-CERT'],
    [{ key_type: 'ec', key_bits: 384 }, 'ecdsa-sha2-nistp384', /^-----BEGIN EC PRIVATE KEY-----/, 'ECDSA-CERT'],
    [{ key_type: 'rsa', key_bits: 2048 }, 'ssh-rsa', /^-----BEGIN RSA PRIVATE KEY-----/, 'RSA-CERT'],
  ] as const)(
    'generates %o, signs its public key, answers serial_number, signed_key, private_key, private_key_type',
    async (body, sshType, pem, certKind) => {
      const r = await issue('users', { ...body, valid_principals: 'bob', ttl: '10m' });
      expect(r.status).toBe(200);
      expect(r.json!.lease_id).toMatch(/^ssh\/issue\/users\//);
      expect(r.json!.lease_duration).toBe(600);
      const d = r.json!.data as Record<string, string>;
      expect(Object.keys(d).sort()).toEqual(['private_key', 'private_key_type', 'serial_number', 'signed_key']);
      expect(d.private_key_type).toBe(body.key_type);
      expect(d.private_key).toMatch(pem);
      const pub = publicOf(d.private_key!);
      expect(pub.startsWith(`${sshType} `)).toBe(true);
      const info = certInfo(d.signed_key!);
      expect(field(info, 'Type')).toMatch(/user certificate$/);
      expect(field(info, 'Public key')).toBe(`${certKind} ${fingerprint(pub)}`);
      expect(BigInt(field(info, 'Serial'))).toBe(BigInt(`0x${d.serial_number}`));
      expect(section(info, 'Principals')).toEqual(['bob']);
    },
  );

  it('defaults to a 4096-bit RSA key and the role default user', async () => {
    const r = await issue('users', {});
    expect(r.status).toBe(200);
    expect(r.json!.data.private_key_type).toBe('rsa');
    expect(fingerprint(publicOf(r.json!.data.private_key))).toBeTruthy();
    const file = join(dir, 'default.pub');
    writeFileSync(file, publicOf(r.json!.data.private_key));
    expect(execFileSync('ssh-keygen', ['-l', '-f', file], { encoding: 'utf8' })).toMatch(/^4096 /);
    expect(section(certInfo(r.json!.data.signed_key), 'Principals')).toEqual(['alice']);
  }, 30_000);

  it.each([
    ['an unknown role', 'ghost', {}, /^unknown role: ghost$/],
    ['an otp role', 'otp', {}, /^role key type "otp" is not allowed to issue key pairs$/],
    ['an unknown key_type', 'users', { key_type: 'dsa' }, /^unsupported key_type "dsa"$/],
    ['a weak RSA size', 'users', { key_type: 'rsa', key_bits: 1024 }, /^invalid key_bits 1024 for key_type rsa/],
    ['an unknown curve', 'users', { key_type: 'ec', key_bits: 255 }, /^invalid key_bits 255 for key_type ec/],
    ['key_bits that is not a number', 'users', { key_bits: 'big' }, /field "key_bits"/],
    ['a principal the role does not allow', 'users', { key_type: 'ed25519', valid_principals: 'mallory' }, /mallory/],
  ])('refuses %s (400)', async (_what, role, body, message) => {
    const r = await issue(role, body);
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
  });

  it('applies allowed_user_key_lengths to the generated key', async () => {
    await writeRole(svc, 'rsaonly', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      default_user: 'alice',
      allowed_user_key_lengths: { rsa: 2048 },
    });
    expect((await issue('rsaonly', { key_type: 'rsa', key_bits: 2048 })).status).toBe(200);
    const ed = await issue('rsaonly', { key_type: 'ed25519' });
    expect(ed.status).toBe(400);
  });
});
