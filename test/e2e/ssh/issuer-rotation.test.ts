/**
 * A CA rotation against a real sshd: the trust file is public_keys (every issuer's key, one line
 * each), so while both keys are trusted, certificates of both issuers log in; once the old issuer is
 * deleted and the file rewritten from public_keys, only the new issuer's certificates do.
 */
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../../helpers/service';
import { certInfo, field, keygen, tempDir } from '../../helpers/ssh-keys';
import { ensureUser, sshLogin, startSshd, type Sshd } from '../../helpers/sshd';
import { call, sign, sshService, writeRole } from './setup';

const USER = 'lkrotate';
const dir = tempDir();
const trustFile = join(dir, 'trusted-user-ca-keys');
let svc: TestService;
let sshd: Sshd | undefined;

beforeAll(async () => {
  ensureUser(USER);
  svc = await sshService();
  await writeRole(svc, 'login', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*' });
});
afterAll(async () => {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function must(method: string, path: string, body?: Record<string, unknown>) {
  const r = await call(svc.app, method, `/v1/ssh/${path}`, { token: svc.root, ...(body ? { body } : {}) });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r;
}

/** The trust file as a host would fetch it: GET public_keys, no token. */
async function trustFromPublicKeys(): Promise<string[]> {
  const r = await call(svc.app, 'GET', '/v1/ssh/public_keys');
  expect(r.status).toBe(200);
  writeFileSync(trustFile, r.text);
  return r.text.trimEnd().split('\n');
}

/** A fresh user key signed under the role `login` (the default issuer), or under `role`. */
async function certified(role = 'login') {
  const k = keygen(dir, 'ed25519');
  const r = await sign(svc, role, { public_key: k.pubText, valid_principals: USER });
  expect(r.status).toBe(200);
  const cert = `${k.priv}-cert.pub`;
  writeFileSync(cert, r.json!.data.signed_key);
  chmodSync(k.priv, 0o600);
  return { key: k.priv, cert, issuer: r.json!.data.issuer_id as string, signingCa: field(certInfo(r.json!.data.signed_key), 'Signing CA') };
}

/** `SHA256:...` of the CA that signed a certificate. */
const fingerprintOf = (c: { signingCa: string }) => c.signingCa.split(' ')[1]!;

const logsIn = async (c: { key: string; cert: string }) => (await sshLogin({ port: sshd!.port, user: USER, ...c })).code === 0;

describe('rotating the CA key of an SSH mount', () => {
  it('trusts both keys during the rotation, then only the new one', async () => {
    const old = (await must('POST', 'config/ca', { key_type: 'ed25519' })).json!.data;
    expect(await trustFromPublicKeys()).toHaveLength(1);
    sshd = await startSshd({ trustedUserCa: trustFile });
    const oldCert = await certified();
    expect(oldCert.issuer).toBe(old.issuer_id);
    expect(await logsIn(oldCert)).toBe(true);

    // 1. Add the new CA key as an issuer (not the default yet), 2. trust both.
    const fresh = (await must('POST', 'issuers/import/ca-2', { key_type: 'ec', key_bits: 384 })).json!.data;
    const trusted = await trustFromPublicKeys();
    expect(trusted).toEqual([`${old.public_key.trim()} ${old.issuer_id}`, `${fresh.public_key.trim()} ${fresh.issuer_id} ca-2`]);
    // 3. Switch the default, 4. re-sign: new certificates come from the new key.
    await must('POST', 'config/issuers', { default: 'ca-2' });
    const newCert = await certified();
    expect(newCert.issuer).toBe(fresh.issuer_id);
    expect(newCert.signingCa).toMatch(/^ECDSA /);
    expect(oldCert.signingCa).toMatch(/^ED25519 /);
    // While both are trusted, certificates of both issuers log in.
    expect(await logsIn(oldCert)).toBe(true);
    expect(await logsIn(newCert)).toBe(true);
    expect(sshd.log()).toContain(`signed by ECDSA CA ${fingerprintOf(newCert)} via ${trustFile}`);

    // 5. Drop the old: delete its issuer and rewrite the trust file from public_keys.
    expect((await call(svc.app, 'DELETE', `/v1/ssh/issuer/${old.issuer_id}`, { token: svc.root })).status).toBe(204);
    expect(await trustFromPublicKeys()).toEqual([`${fresh.public_key.trim()} ${fresh.issuer_id} ca-2`]);
    // sshd reads TrustedUserCAKeys at each login: the running one already refuses the old issuer's certificate.
    expect(await logsIn(oldCert)).toBe(false);
    expect(sshd.log()).toMatch(new RegExp(`Failed publickey for ${USER} .* CA ED25519 ${fingerprintOf(oldCert).replace(/[+/]/g, '\\$&')}`));
    expect(await logsIn(newCert)).toBe(true);
    // And so does a restarted one.
    await sshd.stop();
    sshd = await startSshd({ trustedUserCa: trustFile });
    expect(await logsIn(oldCert)).toBe(false);
    expect(await logsIn(newCert)).toBe(true);
    expect(sshd.log()).not.toMatch(/bad key|could not parse|invalid format/i);
  }, 90_000);
});
