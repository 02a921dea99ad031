/** Certificates accepted by a stock OpenSSH: logins to a real sshd on loopback, host certificates through known_hosts. */
import { chmodSync, copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { ensureUser, sshLogin, startSshd, type Sshd } from '../../helpers/sshd';
import { generateCa, sign, sshService, writeRole } from './setup';

const USER = 'lkcert';
const dir = tempDir();
const started: Sshd[] = [];

beforeAll(() => {
  ensureUser(USER);
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** A service with a CA of `ca`, a user role, and an sshd trusting that CA. */
async function setup(ca: Record<string, unknown>, role: Record<string, unknown> = {}) {
  const svc = await sshService();
  const caLine = await generateCa(svc, ca);
  const caFile = join(dir, `ca-${started.length}.pub`);
  writeFileSync(caFile, caLine);
  await writeRole(svc, 'login', {
    key_type: 'ca',
    allow_user_certificates: true,
    allowed_users: '*',
    allowed_critical_options: 'source-address,force-command',
    default_extensions: { 'permit-pty': '' },
    ...role,
  });
  const sshd = await startSshd({ trustedUserCa: caFile });
  started.push(sshd);
  return { svc, sshd };
}

async function signedKey(svc: TestService, body: Record<string, unknown>, type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519') {
  const k = keygen(dir, type, type === 'rsa' ? 2048 : undefined);
  const r = await sign(svc, 'login', { public_key: k.pubText, valid_principals: USER, ...body });
  expect(r.status).toBe(200);
  const cert = `${k.priv}-cert.pub`;
  writeFileSync(cert, r.json!.data.signed_key);
  chmodSync(k.priv, 0o600);
  return { key: k.priv, cert };
}

describe('user certificates log in to sshd', () => {
  it.each([
    [{ key_type: 'rsa', key_bits: 2048 }, 'ed25519'],
    [{ key_type: 'rsa', key_bits: 2048 }, 'rsa'],
    [{ key_type: 'ec', key_bits: 256 }, 'ecdsa'],
    [{ key_type: 'ec', key_bits: 521 }, 'ed25519'],
    [{ key_type: 'ed25519' }, 'rsa'],
    [{ key_type: 'ed25519' }, 'ed25519'],
  ] as const)(
    'CA %j, user key %s',
    async (ca, type) => {
      const { svc, sshd } = await setup(ca);
      const { key, cert } = await signedKey(svc, {}, type);
      const ok = await sshLogin({ port: sshd.port, user: USER, key, cert });
      expect(ok.stderr).not.toMatch(/Permission denied/);
      expect(ok).toMatchObject({ code: 0 });
      expect(ok.stdout.trim()).toBe(`logged-in-as-${USER}`);
      // Without the certificate the same key is refused: the certificate is what logs in.
      // (A copy, since ssh picks up <key>-cert.pub beside the key by itself.)
      const bare = `${key}-bare`;
      copyFileSync(key, bare);
      const without = await sshLogin({ port: sshd.port, user: USER, key: bare });
      expect(without.code).not.toBe(0);
    },
    60_000,
  );

  it('an RSA CA signing with rsa-sha2-512 is accepted; with ssh-rsa (SHA-1) stock sshd refuses it', async () => {
    const { svc, sshd } = await setup({ key_type: 'rsa', key_bits: 2048 }, { algorithm_signer: 'rsa-sha2-512' });
    const good = await signedKey(svc, {});
    expect((await sshLogin({ port: sshd.port, user: USER, ...good })).code).toBe(0);
    await writeRole(svc, 'login', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', algorithm_signer: 'ssh-rsa' });
    const sha1 = await signedKey(svc, {});
    expect((await sshLogin({ port: sshd.port, user: USER, ...sha1 })).code).not.toBe(0);
  }, 60_000);

  it('a certificate for another principal is refused', async () => {
    const { svc, sshd } = await setup({ key_type: 'ed25519' });
    const other = await signedKey(svc, { valid_principals: 'someone-else' });
    expect((await sshLogin({ port: sshd.port, user: USER, ...other })).code).not.toBe(0);
  }, 60_000);

  it('enforces the source-address critical option', async () => {
    const { svc, sshd } = await setup({ key_type: 'ed25519' });
    const inside = await signedKey(svc, { critical_options: { 'source-address': '127.0.0.1/32' } });
    expect((await sshLogin({ port: sshd.port, user: USER, ...inside })).code).toBe(0);
    const outside = await signedKey(svc, { critical_options: { 'source-address': '10.0.0.0/8' } });
    const refused = await sshLogin({ port: sshd.port, user: USER, ...outside });
    expect(refused.code).not.toBe(0);
    expect(sshd.log()).toMatch(/source-address|not allowed from this address|Refused by certificate options/i);
  }, 60_000);

  it('an expired certificate is refused', async () => {
    let clock = Date.now() - 7200_000;
    const svc = await sshService({ now: () => clock });
    const caLine = await generateCa(svc, { key_type: 'ed25519' });
    const caFile = join(dir, 'ca-expired.pub');
    writeFileSync(caFile, caLine);
    await writeRole(svc, 'login', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    const sshd = await startSshd({ trustedUserCa: caFile });
    started.push(sshd);
    const old = await signedKey(svc, { ttl: '1h' });
    clock = Date.now();
    expect((await sshLogin({ port: sshd.port, user: USER, ...old })).code).not.toBe(0);
  }, 60_000);
});

describe('host certificates', () => {
  it('ssh accepts the host through @cert-authority with strict host key checking', async () => {
    const svc = await sshService();
    const caLine = await generateCa(svc, { key_type: 'ed25519' });
    await writeRole(svc, 'hosts', {
      key_type: 'ca',
      allow_host_certificates: true,
      allowed_domains: 'example.com',
      allow_subdomains: true,
    });
    const userCaFile = join(dir, 'ca-user-host.pub');
    writeFileSync(userCaFile, caLine);
    await writeRole(svc, 'login', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
    const hostKey = keygen(dir, 'ed25519');
    const r = await sign(svc, 'hosts', { public_key: hostKey.pubText, cert_type: 'host', valid_principals: 'ssh.example.com' });
    expect(r.status).toBe(200);
    const hostCert = `${hostKey.priv}-cert.pub`;
    writeFileSync(hostCert, r.json!.data.signed_key);
    const sshd = await startSshd({ trustedUserCa: userCaFile, hostKey, hostCertificate: hostCert });
    started.push(sshd);
    const user = await signedKey(svc, {});
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `@cert-authority *.example.com ${caLine}`);
    const ok = await sshLogin({ port: sshd.port, user: USER, ...user, knownHosts, hostAlias: 'ssh.example.com' });
    expect(ok.stderr).not.toMatch(/Host key verification failed/);
    expect(ok.code).toBe(0);
    // The same host under a name its certificate does not carry fails strict checking.
    const wrongName = await sshLogin({ port: sshd.port, user: USER, ...user, knownHosts, hostAlias: 'other.example.com' });
    expect(wrongName.code).not.toBe(0);
    // And a known_hosts trusting another CA fails too.
    const otherCa = keygen(dir, 'ed25519').pubText;
    writeFileSync(knownHosts, `@cert-authority *.example.com ${otherCa}`);
    expect((await sshLogin({ port: sshd.port, user: USER, ...user, knownHosts, hostAlias: 'ssh.example.com' })).code).not.toBe(0);
  }, 60_000);
});
