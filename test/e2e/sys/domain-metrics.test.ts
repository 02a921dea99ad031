/**
 * The domain metrics (lib/metrics/catalog.ts) count exactly what was done, read back through
 * sys/metrics as a scraper reads them: certificates issued (by mount, issuer and role) and
 * revoked, CRLs built, OCSP answers, SSH certificates signed, leases created and revoked, logins
 * by method and result, tokens created and revoked, audit records, job runs, store calls.
 */
import { generateKeyPairSync } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { sshEngine } from '../../../lib/ssh/engine';
import { sweep } from '../../../lib/sys/sweeper';
import { pkiSchedule } from '../../../lib/pki/auto-tidy';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let scraper: string;
let dir: string;

interface Entry {
  Name: string;
  Sum?: number;
  Value?: number;
  Count?: number;
  Labels: Record<string, string>;
}

type Lookup = (name: string, labels?: Record<string, string>) => number;

/** One read of sys/metrics: the sum of every series of a name whose labels include the given ones (histograms: their count; gauges: their value). */
async function snapshot(): Promise<Lookup> {
  const r = await call(svc.app, 'GET', '/v1/sys/metrics', { token: scraper });
  expect(r.status).toBe(200);
  const j = r.json as unknown as { Counters: Entry[]; Samples: Entry[]; Gauges: Entry[] };
  const all = [...j.Counters, ...j.Samples.map((s) => ({ ...s, Sum: s.Count })), ...j.Gauges.map((g) => ({ ...g, Sum: g.Value }))];
  return (name, labels = {}) =>
    all.filter((e) => e.Name === name && Object.entries(labels).every(([k, v]) => e.Labels[k] === v)).reduce((n, e) => n + (e.Sum ?? 0), 0);
}

const metric = async (name: string, labels: Record<string, string> = {}) => (await snapshot())(name, labels);

async function ok(method: string, path: string, body?: Record<string, unknown>, token = svc.root) {
  const r = await call(svc.app, method, `/v1/${path}`, { token, ...(body ? { body } : {}) });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json?.data as Record<string, unknown>;
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine, sshEngine] });
  dir = mkdtempSync(join(tmpdir(), 'latchkey-domain-metrics-'));
  await ok('PUT', 'sys/policies/acl/metrics-reader', { policy: 'path "sys/metrics" { capabilities = ["read"] }' });
  scraper = await tokenWith(svc, ['metrics-reader']);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('domain metrics through sys/metrics', () => {
  it('counts certificates issued by mount, issuer and role, revocations, CRL builds and OCSP answers', async () => {
    const root = await ok('POST', 'pki/root/generate/internal', { common_name: 'Metrics Root', ttl: '87600h' });
    const issuer = root.issuer_id as string;
    await ok('POST', 'pki/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '24h' });
    await ok('POST', 'pki/config/crl', { enable_delta: true, auto_rebuild: true });
    const before = await metric('latchkey_pki_certificates_issued_total', { mount: 'pki', issuer, role: 'web' });
    const serials: string[] = [];
    for (let i = 0; i < 7; i++)
      serials.push((await ok('POST', 'pki/issue/web', { common_name: `h${i}.example.com` })).serial_number as string);
    expect(await metric('latchkey_pki_certificates_issued_total', { mount: 'pki', issuer, role: 'web' })).toBe(before + 7);
    // The root itself was counted, under no role.
    expect(await metric('latchkey_pki_certificates_issued_total', { mount: 'pki', issuer, role: '' })).toBe(1);

    const crlsBefore = await metric('latchkey_pki_crl_builds_total', { mount: 'pki' });
    await ok('POST', 'pki/revoke', { serial_number: serials[0] });
    await ok('POST', 'pki/revoke', { serial_number: serials[1] });
    await ok('POST', 'pki/revoke', { serial_number: serials[1] }); // again: not a second revocation
    expect(await metric('latchkey_pki_certificates_revoked_total', { mount: 'pki' })).toBe(2);
    expect(await metric('latchkey_pki_crl_builds_total', { mount: 'pki' })).toBeGreaterThan(crlsBefore);
    expect(await metric('latchkey_pki_crl_build_duration_seconds', { mount: 'pki' })).toBe(
      await metric('latchkey_pki_crl_builds_total', { mount: 'pki' }),
    );

    // OCSP: one revoked, one good, asked with openssl's own request.
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, root.certificate as string);
    const leaf = await ok('POST', 'pki/issue/web', { common_name: 'ocsp.example.com' });
    const leafPem = join(dir, 'leaf.pem');
    writeFileSync(leafPem, leaf.certificate as string);
    const req = join(dir, 'req.der');
    execFileSync('openssl', ['ocsp', '-issuer', ca, '-cert', leafPem, '-no_nonce', '-reqout', req]);
    const r = await call(svc.app, 'POST', '/v1/pki/ocsp', {
      raw: new Uint8Array(readFileSync(req)),
      headers: { 'content-type': 'application/ocsp-request' },
    });
    expect(r.status).toBe(200);
    expect(await metric('latchkey_pki_ocsp_responses_total', { mount: 'pki', status: 'good' })).toBe(1);
    expect(await metric('latchkey_pki_ocsp_build_duration_seconds', { mount: 'pki' })).toBe(1);

    // The CRL schedule sets the overdue gauge for the mount (nothing overdue right after a build).
    const runs = await metric('latchkey_job_runs_total', { job: 'pki-crl' });
    await pkiSchedule(svc.deps, Date.now() + 10_000);
    expect(await metric('latchkey_job_runs_total', { job: 'pki-crl' })).toBe(runs + 1);
    expect(await metric('latchkey_pki_crls_overdue', { mount: 'pki' })).toBe(0);
  });

  it('counts SSH certificates signed by type, and the leases they make, created and revoked', async () => {
    await ok('POST', 'ssh/config/ca', { key_type: 'ed25519' });
    await ok('POST', 'ssh/roles/ops', {
      key_type: 'ca',
      allow_user_certificates: true,
      allowed_users: '*',
      default_user: 'ops',
      ttl: '1h',
    });
    const { publicKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = Buffer.from(jwk.x!, 'base64url');
    const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), raw]);
    const line = `ssh-ed25519 ${blob.toString('base64')}`;
    const created = await metric('latchkey_leases_created_total', { engine: 'ssh' });
    const leases: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(svc.app, 'POST', '/v1/ssh/sign/ops', { token: svc.root, body: { public_key: line } });
      expect(r.status).toBe(200);
      leases.push(r.json!.lease_id as string);
    }
    expect(await metric('latchkey_ssh_certificates_signed_total', { mount: 'ssh', cert_type: 'user' })).toBe(3);
    expect(await metric('latchkey_leases_created_total', { engine: 'ssh' })).toBe(created + 3);
    await ok('PUT', 'sys/leases/revoke', { lease_id: leases[0] });
    expect(await metric('latchkey_leases_revoked_total', { engine: 'ssh' })).toBe(1);
    expect(await metric('latchkey_ssh_certificates_revoked_total', { mount: 'ssh' })).toBe(1);
  });

  it('counts logins by method and result, tokens created and revoked, and the sweeper run', async () => {
    await ok('POST', 'auth/approle/role/app', { token_policies: 'default', secret_id_num_uses: 0 });
    const roleId = (await ok('GET', 'auth/approle/role/app/role-id')).role_id as string;
    const secretId = (await ok('POST', 'auth/approle/role/app/secret-id')).secret_id as string;
    const tokensBefore = await metric('latchkey_tokens_created_total', { kind: 'service' });
    const revokedBefore = await metric('latchkey_tokens_revoked_total');
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await call(svc.app, 'POST', '/v1/auth/approle/login', { body: { role_id: roleId, secret_id: secretId } });
      expect(r.status).toBe(200);
      tokens.push(r.json!.auth.client_token as string);
    }
    const bad = await call(svc.app, 'POST', '/v1/auth/approle/login', { body: { role_id: roleId, secret_id: 'wrong' } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(await metric('latchkey_logins_total', { method: 'approle', result: 'success' })).toBe(4);
    expect(await metric('latchkey_logins_total', { method: 'approle', result: 'failure' })).toBe(1);
    expect(await metric('latchkey_tokens_created_total', { kind: 'service' })).toBe(tokensBefore + 4);
    await ok('POST', 'auth/token/revoke', { token: tokens[0] });
    await ok('POST', 'auth/token/revoke', { token: tokens[1] });
    expect(await metric('latchkey_tokens_revoked_total')).toBe(revokedBefore + 2);

    const sweeps = await metric('latchkey_job_runs_total', { job: 'lease-sweep' });
    await sweep(svc.deps, 5_000);
    expect(await metric('latchkey_job_runs_total', { job: 'lease-sweep' })).toBe(sweeps + 1);
    expect(await metric('latchkey_job_failures_total', { job: 'lease-sweep' })).toBe(0);
  });

  it('counts store calls by operation, each with its duration', async () => {
    const m = await snapshot();
    const gets = m('latchkey_store_calls_total', { operation: 'get' });
    expect(gets).toBeGreaterThan(0);
    expect(m('latchkey_store_call_duration_seconds', { operation: 'get' })).toBe(gets);
    expect(m('latchkey_store_calls_total', { operation: 'put', result: 'ok' })).toBeGreaterThan(0);
    // Audit records: none written here (no device in tests), none failed.
    expect(m('latchkey_audit_write_failures_total')).toBe(0);
  });
});
