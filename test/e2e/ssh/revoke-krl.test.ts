/**
 * SSH certificate revocation reaching sshd: POST ssh/revoke (serial_number, key_id, certificate),
 * lease and token revocation, GET ssh/krl (no token) read by ssh-keygen -Q and by a real sshd
 * with RevokedKeys; tidy; bad input; two app instances on one store.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sshEngine } from '../../../lib/ssh/engine';
import { instancesOnOneStore } from '../../helpers/instances';
import { tokenWith, type TestService } from '../../helpers/service';
import { keygen, tempDir } from '../../helpers/ssh-keys';
import { ensureUser, sshLogin, startSshd, type Sshd } from '../../helpers/sshd';
import { call, generateCa, sign, sshService, writeRole } from './setup';
import type { Hono } from 'hono';

const USER = 'lkkrl';
const dir = tempDir('latchkey-krl-e2e-');
const started: Sshd[] = [];

beforeAll(() => {
  ensureUser(USER);
});
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
  rmSync(dir, { recursive: true, force: true });
});

const ROLE = {
  key_type: 'ca',
  allow_user_certificates: true,
  allowed_users: '*',
  allow_user_key_ids: true,
  default_extensions: { 'permit-pty': '' },
};

interface Cert {
  key: string;
  cert: string;
  line: string;
  serial: string;
  leaseId: string;
}

async function signed(
  svc: { app: Hono; root: string },
  body: Record<string, unknown> = {},
  role = 'login',
  token = svc.root,
): Promise<Cert> {
  const k = keygen(dir, 'ed25519');
  const r = await sign(svc as TestService, role, { public_key: k.pubText, valid_principals: USER, ...body }, token);
  expect(r.status, r.text).toBe(200);
  const cert = `${k.priv}-cert.pub`;
  writeFileSync(cert, r.json!.data.signed_key);
  chmodSync(k.priv, 0o600);
  const serial = BigInt(`0x${r.json!.data.serial_number as string}`).toString();
  return { key: k.priv, cert, line: r.json!.data.signed_key as string, serial, leaseId: r.json!.lease_id as string };
}

let krlFiles = 0;
/** GET ssh/krl with no token, written to a file. */
async function fetchKrl(app: Hono, file = join(dir, `krl-${krlFiles++}`)): Promise<string> {
  const res = await app.request('http://localhost/v1/ssh/krl');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/octet-stream');
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

function query(krl: string, cert: string): 'REVOKED' | 'ok' {
  const r = spawnSync('ssh-keygen', ['-Q', '-f', krl, cert], { encoding: 'utf8' });
  if (r.status === 1 && /REVOKED/.test(r.stdout)) return 'REVOKED';
  if (r.status === 0 && /: ok/.test(r.stdout)) return 'ok';
  throw new Error(`ssh-keygen -Q: ${r.status} ${r.stdout} ${r.stderr}`);
}

async function revoke(app: Hono, token: string, body: Record<string, unknown>) {
  return call(app, 'POST', '/v1/ssh/revoke', { token, body });
}

async function service(now?: () => number) {
  const svc = await sshService(now ? { now } : {});
  await generateCa(svc);
  await writeRole(svc, 'login', ROLE);
  return svc;
}

describe('a real sshd with RevokedKeys', () => {
  it('refuses the revoked certificate and lets another for the same principal in', async () => {
    const svc = await service();
    const caFile = join(dir, 'ca.pub');
    writeFileSync(caFile, (await call(svc.app, 'GET', '/v1/ssh/public_key')).text);
    const krl = await fetchKrl(svc.app, join(dir, 'sshd.krl'));
    const sshd = await startSshd({ trustedUserCa: caFile, revokedKeys: krl });
    started.push(sshd);
    const a = await signed(svc);
    const b = await signed(svc);
    for (const c of [a, b]) expect((await sshLogin({ port: sshd.port, user: USER, key: c.key, cert: c.cert })).code).toBe(0);

    const r = await revoke(svc.app, svc.root, { serial_number: a.serial });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.serial_numbers).toEqual([a.serial]);
    await fetchKrl(svc.app, krl);
    expect(query(krl, a.cert)).toBe('REVOKED');
    expect(query(krl, b.cert)).toBe('ok');

    const refused = await sshLogin({ port: sshd.port, user: USER, key: a.key, cert: a.cert });
    expect(refused.code).not.toBe(0);
    expect(sshd.log()).toMatch(/revoked/i);
    const ok = await sshLogin({ port: sshd.port, user: USER, key: b.key, cert: b.cert });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe(`logged-in-as-${USER}`);
  }, 60_000);
});

describe('POST ssh/revoke', () => {
  it('by serial_number (again: the first revocation time), by key_id, by the certificate itself', async () => {
    const svc = await service();
    const [a, b, c1, c2, d] = [
      await signed(svc),
      await signed(svc, { key_id: 'other' }),
      await signed(svc, { key_id: 'deploy-7' }),
      await signed(svc, { key_id: 'deploy-7' }),
      await signed(svc),
    ];
    const first = await revoke(svc.app, svc.root, { serial_number: a.serial });
    const again = await revoke(svc.app, svc.root, { serial_number: a.serial });
    expect(again.status).toBe(200);
    expect(again.json!.data.revocation_time).toBe(first.json!.data.revocation_time);
    const byId = await revoke(svc.app, svc.root, { key_id: 'deploy-7' });
    expect(byId.status, byId.text).toBe(200);
    expect([...(byId.json!.data.serial_numbers as string[])].sort()).toEqual([c1.serial, c2.serial].sort());
    const byCert = await revoke(svc.app, svc.root, { certificate: d.line });
    expect(byCert.status, byCert.text).toBe(200);
    expect(byCert.json!.data.serial_numbers).toEqual([d.serial]);
    const krl = await fetchKrl(svc.app);
    for (const x of [a, c1, c2, d]) expect(query(krl, x.cert)).toBe('REVOKED');
    expect(query(krl, b.cert)).toBe('ok');
  });

  it('a no_store role records nothing: its certificate is revoked only by the certificate itself', async () => {
    const svc = await service();
    await writeRole(svc, 'nostore', { ...ROLE, no_store: true });
    expect((await call(svc.app, 'GET', '/v1/ssh/roles/nostore', { token: svc.root })).json!.data.no_store).toBe(true);
    const c = await signed(svc, {}, 'nostore');
    expect((await revoke(svc.app, svc.root, { serial_number: c.serial })).status).toBe(404);
    expect((await revoke(svc.app, svc.root, { certificate: c.line })).status).toBe(200);
    expect(query(await fetchKrl(svc.app), c.cert)).toBe('REVOKED');
    // A setting that would not be enforced is refused.
    const otp = await call(svc.app, 'POST', '/v1/ssh/roles/o', {
      token: svc.root,
      body: { key_type: 'otp', default_user: 'u', cidr_list: '10.0.0.0/8', no_store: true },
    });
    expect(otp.status).toBe(400);
  });

  it('is a write like any other: a token without the policy is refused, one with it revokes; the KRL needs no token', async () => {
    const svc = await service();
    await call(svc.app, 'POST', '/v1/sys/policies/acl/signer', {
      token: svc.root,
      body: { policy: 'path "ssh/sign/login" { capabilities = ["update"] }' },
    });
    await call(svc.app, 'POST', '/v1/sys/policies/acl/revoker', {
      token: svc.root,
      body: { policy: 'path "ssh/revoke" { capabilities = ["update"] }' },
    });
    const signer = await tokenWith(svc, ['signer']);
    const revoker = await tokenWith(svc, ['revoker']);
    const c = await signed(svc, {}, 'login', signer);
    expect((await revoke(svc.app, signer, { serial_number: c.serial })).status).toBe(403);
    expect((await revoke(svc.app, revoker, { serial_number: c.serial })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/ssh/krl')).status).toBe(200);
  });
});

describe('revoking the lease or the token revokes the certificate', () => {
  it('sys/leases/revoke on the lease of sign', async () => {
    const svc = await service();
    const c = await signed(svc);
    const keep = await signed(svc);
    expect(c.leaseId).toMatch(/^ssh\/sign\/login\//);
    const r = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: c.leaseId } });
    expect(r.status, r.text).toBe(204);
    const krl = await fetchKrl(svc.app);
    expect(query(krl, c.cert)).toBe('REVOKED');
    expect(query(krl, keep.cert)).toBe('ok');
  });

  it('revoking the token that signed', async () => {
    const svc = await service();
    await call(svc.app, 'POST', '/v1/sys/policies/acl/signer', {
      token: svc.root,
      body: { policy: 'path "ssh/issue/login" { capabilities = ["update"] }' },
    });
    const token = await tokenWith(svc, ['signer']);
    const r = await call(svc.app, 'POST', '/v1/ssh/issue/login', { token, body: { key_type: 'ed25519', valid_principals: USER } });
    expect(r.status, r.text).toBe(200);
    const cert = join(dir, 'issued-cert.pub');
    writeFileSync(cert, r.json!.data.signed_key);
    expect(query(await fetchKrl(svc.app), cert)).toBe('ok');
    const t = await call(svc.app, 'POST', '/v1/auth/token/revoke', { token: svc.root, body: { token } });
    expect(t.status, t.text).toBe(204);
    expect(query(await fetchKrl(svc.app), cert)).toBe('REVOKED');
  });
});

describe('tidy', () => {
  it('drops expired certificates from the KRL once past the safety buffer', async () => {
    let clock = Date.now();
    const svc = await service(() => clock);
    const short = await signed(svc, { ttl: '60s' });
    const long = await signed(svc, { ttl: '24h' });
    await revoke(svc.app, svc.root, { serial_number: short.serial });
    await revoke(svc.app, svc.root, { serial_number: long.serial });
    clock += 2 * 3600_000;
    // Within the safety buffer (72h by default) nothing goes.
    expect((await call(svc.app, 'POST', '/v1/ssh/tidy', { token: svc.root, body: {} })).json!.data.records_removed).toBe(0);
    const r = await call(svc.app, 'POST', '/v1/ssh/tidy', { token: svc.root, body: { safety_buffer: '1h' } });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.records_removed).toBeGreaterThan(0);
    const krl = await fetchKrl(svc.app);
    expect(query(krl, short.cert)).toBe('ok');
    expect(query(krl, long.cert)).toBe('REVOKED');
    expect((await revoke(svc.app, svc.root, { serial_number: short.serial })).status).toBe(404);
  });
});

describe('bad input is a 4xx naming the problem', () => {
  it.each([
    ['nothing', {}, 400, /exactly one/],
    ['two fields', { serial_number: '5', key_id: 'x' }, 400, /exactly one/],
    ['a serial that is no number', { serial_number: 'abc' }, 400, /serial_number/],
    ['a serial above 2^64', { serial_number: '18446744073709551616' }, 400, /serial_number/],
    ['an unknown serial', { serial_number: '12345' }, 404, /no certificate with serial number 12345/],
    ['a key_id matching nothing', { key_id: 'nobody' }, 404, /key_id/],
    ['a garbage certificate', { certificate: 'not a certificate at all' }, 400, /certificate/],
    ['a base64 garbage certificate', { certificate: 'ssh-ed25519-cert-v01@openssh.com AAAAB3NzaC1yc2E=' }, 400, /certificate/],
    ['a plain public key', { certificate: 'PUBKEY' }, 400, /not an OpenSSH certificate/],
    ['a huge certificate', { certificate: `ssh-ed25519-cert-v01@openssh.com ${'A'.repeat(100_000)}` }, 400, /too long/],
  ] as const)('%s', async (_name, body, status, message) => {
    const svc = await service();
    const b = { ...body } as Record<string, unknown>;
    if (b.certificate === 'PUBKEY') b.certificate = keygen(dir, 'ed25519').pubText;
    const r = await revoke(svc.app, svc.root, b);
    expect(r.status, r.text).toBe(status);
    expect((r.json!.errors as string[]).join(' ')).toMatch(message);
  });

  it('a truncated certificate, one of another CA, one whose signature does not verify; a huge body', async () => {
    const svc = await service();
    const c = await signed(svc, { key_id: 'tamper-me' });
    const [type, b64] = c.line.trim().split(/\s+/) as [string, string];
    const bytes = Buffer.from(b64, 'base64');
    const truncated = await revoke(svc.app, svc.root, { certificate: `${type} ${bytes.subarray(0, 100).toString('base64')}` });
    expect(truncated.status).toBe(400);
    expect(truncated.json!.errors[0]).toMatch(/truncated or malformed/);
    // Another CA: ssh-keygen signs the same key.
    const other = keygen(dir, 'ed25519');
    const user = keygen(dir, 'ed25519');
    execFileSync('ssh-keygen', ['-q', '-s', other.priv, '-I', 'x', '-n', USER, user.pub], { stdio: 'pipe' });
    const foreign = execFileSync('cat', [`${user.priv}-cert.pub`], { encoding: 'utf8' });
    const f = await revoke(svc.app, svc.root, { certificate: foreign });
    expect(f.status).toBe(400);
    expect(f.json!.errors[0]).toMatch(/not signed by an issuer of this mount/);
    // Our CA's key, a changed key id: the signature no longer verifies.
    const at = bytes.indexOf(Buffer.from('tamper-me'));
    const forged = Buffer.from(bytes);
    forged.write('tamper-XX', at);
    const g = await revoke(svc.app, svc.root, { certificate: `${type} ${forged.toString('base64')}` });
    expect(g.status).toBe(400);
    expect(g.json!.errors[0]).toMatch(/signature does not verify/);
    const huge = await revoke(svc.app, svc.root, { certificate: 'A'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(query(await fetchKrl(svc.app), c.cert)).toBe('ok');
  });
});

describe('two instances on one store', () => {
  it('a revocation through either instance is in the KRL the other serves at once', async () => {
    const { apps, root } = await instancesOnOneStore([sshEngine]);
    const one = { app: apps[0]! };
    const two = { app: apps[1]! };
    const svc1 = { app: one.app, root };
    const svc2 = { app: two.app, root };
    await generateCa({ ...svc1 } as TestService);
    await writeRole(svc1 as TestService, 'login', ROLE);
    const certs = [await signed(svc1), await signed(svc2), await signed(svc1), await signed(svc2)];
    // Warm both instances' KRL answers first: nothing may be served from an older build.
    for (const app of [one.app, two.app]) for (const c of certs) expect(query(await fetchKrl(app), c.cert)).toBe('ok');
    for (const [i, c] of certs.entries()) {
      const [by, other] = i % 2 === 0 ? [one.app, two.app] : [two.app, one.app];
      expect((await revoke(by, root, { serial_number: c.serial })).status).toBe(200);
      const krl = await fetchKrl(other);
      for (const [j, d] of certs.entries()) expect(query(krl, d.cert)).toBe(j <= i ? 'REVOKED' : 'ok');
    }
  });
});
