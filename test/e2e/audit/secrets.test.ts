/**
 * One run that makes every kind of secret pass through requests and answers — PKI and SSH
 * private keys (issued, exported, sent), tokens (created, wrapped, unwrapped), SSH OTPs,
 * AppRole secret ids (generated, custom, logged in with, looked up),
 * cloud-A and cloud-B client secrets (from their wire-protocol fakes, and the root ones sent
 * in their config), catalog KV values, the root token — then the whole audit file is scanned:
 * none of them appears in clear (PEM body lines, KV values in base64 too). sys/audit-hash
 * reproduces the HMAC the records hold for the root token.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { leaseBench, type LeaseBench } from '../sys/token-leases-bench';
import { readRecords } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-secrets-'));
const auditFile = join(dir, 'audit.log');
const keyDir = tempDir('latchkey-audit-keys-');
let b: LeaseBench;

beforeAll(async () => {
  process.env.AUDIT_DEVICES = `file:${auditFile}`;
  b = await leaseBench();
});
afterAll(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(keyDir, { recursive: true, force: true });
});

/** Each secret the run saw, by what it is. */
const secrets: { what: string; value: string }[] = [];
const keep = (what: string, value: unknown) => {
  expect(typeof value, what).toBe('string');
  expect((value as string).length, what).toBeGreaterThan(5);
  secrets.push({ what, value: value as string });
};

/** A PEM's base64 body lines (each long enough to be unmistakable). */
function keepPem(what: string, pem: string) {
  const lines = pem.split('\n').filter((l) => l && !l.startsWith('-----') && l.length >= 16);
  expect(lines.length, what).toBeGreaterThan(0);
  lines.forEach((l, i) => keep(`${what} line ${i}`, l));
}

async function ok(method: string, path: string, o: Parameters<typeof call>[3] = {}) {
  const r = await call(b.svc.app, method, `/v1/${path}`, { token: b.svc.root, ...o });
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r;
}

describe('audit secrets', () => {
  it('records none of the run’s secrets in clear', async () => {
    keep('root token', b.svc.root);

    // PKI: an issued key, an exported CA key.
    const issued = await ok('POST', 'pki/issue/leased', { body: { common_name: 'secret.example.com' } });
    keepPem('pki issued private key', issued.json!.data.private_key);
    const exported = await ok('POST', 'pki_int/root/generate/exported', { body: { common_name: 'Exported Root', key_type: 'ec' } });
    keepPem('pki exported CA key', exported.json!.data.private_key);

    // SSH: an issued key pair, a private key sent in a request, an OTP (issued, then verified).
    const sshIssued = await ok('POST', 'ssh/issue/users', { body: { key_type: 'ed25519', valid_principals: 'alice' } });
    keepPem('ssh issued private key', sshIssued.json!.data.private_key);
    const sent = keygen(keyDir, 'ed25519');
    await ok('POST', 'ssh/keys/sent', { body: { key: sent.privText } });
    keepPem('ssh private key sent', sent.privText);
    const otp = await ok('POST', 'ssh/creds/otp', { body: { ip: '10.0.0.5' } });
    keep('ssh otp', otp.json!.data.key);
    await ok('POST', 'ssh/verify', { body: { otp: otp.json!.data.key }, token: undefined });

    // Tokens: created, looked up, wrapped and unwrapped; a secret wrapped by sys/wrapping/wrap.
    const child = await ok('POST', 'auth/token/create', { body: { policies: ['default'] } });
    keep('child token', child.json!.auth.client_token);
    keep('child accessor', child.json!.auth.accessor);
    await ok('POST', 'auth/token/lookup', { body: { token: child.json!.auth.client_token } });
    const wrapped = await ok('POST', 'auth/token/create', { body: { policies: ['default'] }, headers: { 'x-vault-wrap-ttl': '5m' } });
    keep('wrapping token', wrapped.json!.wrap_info.token);
    const unwrapped = await ok('POST', 'sys/wrapping/unwrap', { token: wrapped.json!.wrap_info.token, body: {} });
    keep('unwrapped token', unwrapped.json!.auth.client_token);
    const wrap = await ok('POST', 'sys/wrapping/wrap', {
      body: { password: 'wrapped-password-7f3a9c' },
      headers: { 'x-vault-wrap-ttl': '5m' },
    });
    keep('wrapped value', 'wrapped-password-7f3a9c');
    keep('wrap token', wrap.json!.wrap_info.token);
    const rewrapped = await ok('POST', 'sys/wrapping/unwrap', { body: { token: wrap.json!.wrap_info.token } });
    expect(rewrapped.json!.data.password).toBe('wrapped-password-7f3a9c');

    // AppRole: a generated secret id and a custom one, each logged in with; the login's token.
    await ok('POST', 'auth/approle/role/app', { body: { token_policies: ['default'], secret_id_ttl: '1h' } });
    const roleId = (await ok('GET', 'auth/approle/role/app/role-id')).json!.data.role_id as string;
    const generated = await ok('POST', 'auth/approle/role/app/secret-id', { body: { metadata: { team: 'blue' } } });
    keep('approle secret id', generated.json!.data.secret_id);
    keep('approle secret id accessor', generated.json!.data.secret_id_accessor);
    const custom = 'custom-secret-id-5be0a7e2c9';
    await ok('POST', 'auth/approle/role/app/custom-secret-id', { body: { secret_id: custom } });
    keep('approle custom secret id', custom);
    for (const secretId of [generated.json!.data.secret_id, custom]) {
      const login = await ok('POST', 'auth/approle/login', { body: { role_id: roleId, secret_id: secretId }, token: undefined });
      keep('approle login token', login.json!.auth.client_token);
    }
    await ok('POST', 'auth/approle/role/app/secret-id/lookup', { body: { secret_id: custom } });

    // Cloud credentials: the root ones sent at setup, and the dynamic ones issued.
    keep('cloud-a root secret', b.cloudA.root.clientSecret);
    keep('cloud-b root secret', b.cloudB.state.root.secret);
    const a = await ok('GET', 'cloud-a/creds/dyn');
    keep('cloud-a client secret', a.json!.data.client_secret);
    const cb = await ok('GET', 'cloud-b/creds/ops');
    keep('cloud-b secret key', cb.json!.secret_key);

    // Catalog KV (closed, as deployed: the catalog reads its own token header): written, read
    // back as JSON (base64) and raw.
    const value = 'kv-value-9d2e61b4-do-not-log';
    const asRoot = { headers: { 'x-consul-token': b.svc.root } };
    const kv = await call(b.svc.app, 'PUT', '/v1/kv/app/db-password', { ...asRoot, raw: value });
    expect(kv.status, kv.text).toBe(200);
    const read = await call(b.svc.app, 'GET', '/v1/kv/app/db-password', asRoot);
    expect(read.json).toEqual([expect.objectContaining({ Value: Buffer.from(value).toString('base64') })]);
    const raw = await call(b.svc.app, 'GET', '/v1/kv/app/db-password?raw', asRoot);
    expect(raw.text).toBe(value);
    keep('kv value', value);
    keep('kv value (base64)', Buffer.from(value).toString('base64'));

    const text = readFileSync(auditFile, 'utf8');
    const records = readRecords(auditFile);
    expect(records.length).toBeGreaterThan(40);
    for (const path of [
      'auth/approle/login',
      'pki/issue/leased',
      'ssh/issue/users',
      'ssh/creds/otp',
      'cloud-a/creds/dyn',
      'cloud-b/creds/ops',
      'kv/app/db-password',
      'sys/wrapping/unwrap',
    ]) {
      expect(
        records.filter((r) => r.request.path === path).map((r) => r.type),
        path,
      ).toEqual(expect.arrayContaining(['request', 'response']));
    }
    expect(secrets.filter((s) => text.includes(s.value)).map((s) => s.what)).toEqual([]);
  });

  it('sys/audit-hash/file reproduces the HMAC the records hold for the root token', async () => {
    const r = await ok('POST', 'sys/audit-hash/file', { body: { input: b.svc.root } });
    const hash = r.json!.data.hash as string;
    expect(hash).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    const records = readRecords(auditFile);
    const withRoot = records.filter((rec) => rec.auth?.client_token === hash);
    expect(withRoot.length).toBeGreaterThan(20);
    expect(withRoot.every((rec) => rec.request.client_token === hash)).toBe(true);
    expect(records.every((rec) => rec.auth?.client_token === undefined || rec.auth.client_token.startsWith('hmac-sha256:'))).toBe(true);
    // And the hash of a value sent finds its request.
    const sentHash = (await ok('POST', 'sys/audit-hash/file', { body: { input: 'wrapped-password-7f3a9c' } })).json!.data.hash;
    expect(
      records.some((rec) => rec.type === 'request' && rec.request.path === 'sys/wrapping/wrap' && rec.request.data?.password === sentHash),
    ).toBe(true);
    const unknown = await call(b.svc.app, 'POST', '/v1/sys/audit-hash/syslog', { token: b.svc.root, body: { input: 'x' } });
    expect(unknown.status).toBe(404);
  });
});
