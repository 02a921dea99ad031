/**
 * Delta CRLs (issue 26, item 2), checked by the relying parties: a complete CRL (the base) and a
 * delta on it. openssl `verify -crl_check -use_deltas` catches a certificate revoked after the
 * base only with the delta; `openssl crl -text` shows the Delta CRL Indicator (critical, naming
 * the base's number) and the Freshest CRL extension; GnuTLS certtool reads and verifies both; Go's
 * x509.ParseRevocationList parses both and checks their signatures. Certificates carry the
 * Freshest CRL extension from config/urls delta_crl_distribution_points. Also: crl/delta while
 * deltas are off (204), crl/rotate-delta, per-issuer delta paths, `disable` (empty CRLs).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { openssl, text, verifyChain, verifyCrl, withFiles } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
let go: GoX509;
const BASE = 'http://ca.test:8200/v1/pki';
const request = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, body });
async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await request(method, path, body);
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}
/** An unauthenticated read's body (CRLs are public). */
async function fetched(path: string, status = 200): Promise<string> {
  const r = await call(svc.app, 'GET', `/v1/pki/${path}`);
  expect(r.status, `${path}: ${r.text}`).toBe(status);
  return r.text;
}
const issue = async (cn: string) => (await ok('POST', 'issue/web', { common_name: cn })) as { certificate: string; serial_number: string };

/** openssl verify with the CRLs given, deltas used. */
function verifyWithDeltas(leaf: string, ca: string, crls: string[]) {
  return withFiles({ 'leaf.pem': leaf, 'ca.pem': ca, 'crls.pem': crls.join('\n') }, (p) =>
    openssl(['verify', '-crl_check', '-use_deltas', '-CAfile', p('ca.pem'), '-CRLfile', p('crls.pem'), p('leaf.pem')]),
  );
}

function certtool(args: string[], files: Record<string, string>): { ok: boolean; out: string } {
  return withFiles(files, (p) => {
    try {
      const out = execFileSync(
        'certtool',
        args.map((a) => (a.startsWith('@') ? p(a.slice(1)) : a)),
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      return { ok: true, out: out.toString() };
    } catch (e) {
      const err = e as { stdout?: Buffer; stderr?: Buffer };
      return { ok: false, out: `${err.stdout?.toString() ?? ''}${err.stderr?.toString() ?? ''}` };
    }
  });
}

const crlNumberOf = (t: string) => Number(/X509v3 CRL Number:\s*\n\s*(\d+)/.exec(t)?.[1]);
const deltaBaseOf = (t: string) => Number(/X509v3 Delta CRL Indicator: critical\s*\n\s*(\d+)/.exec(t)?.[1]);
const serialsOf = (t: string) => [...t.matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => m[1]!.toLowerCase());
const hex = (colon: string) => colon.replaceAll(':', '').replace(/^0+/, '');

let caPem = '';

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
  caPem = (await ok('POST', 'root/generate/internal', { common_name: 'Delta Root', key_type: 'ec', ttl: '8760h' })).certificate;
  await ok('POST', 'roles/web', { allow_any_name: true, key_type: 'ec', ttl: '24h' });
  await ok('POST', 'config/urls', {
    crl_distribution_points: [`${BASE}/crl`],
    delta_crl_distribution_points: [`${BASE}/crl/delta`],
  });
});

afterAll(async () => {
  await go?.close();
});

describe('while delta CRLs are off', () => {
  it('crl/delta, crl/delta/pem and the per-issuer delta paths answer 204 with no body; cert/delta-crl and issuer/<ref>/crl/delta an empty CRL field', async () => {
    for (const p of [
      'crl/delta',
      'crl/delta/pem',
      'issuer/default/crl/delta/der',
      'issuer/default/crl/delta/pem',
      'cert/delta-crl/raw',
      'cert/delta-crl/raw/pem',
    ])
      expect(await fetched(p, 204)).toBe('');
    expect(JSON.parse(await fetched('issuer/default/crl/delta')).data).toEqual({ crl: '' });
    expect(JSON.parse(await fetched('cert/delta-crl')).data).toMatchObject({ certificate: '' });
  });

  it("crl/rotate-delta is a no-op with OpenBao's warning", async () => {
    const r = await request('GET', 'crl/rotate-delta');
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data).toEqual({ success: true });
    expect(r.json!.warnings).toEqual(['requested rebuild of delta CRL when delta CRL is not enabled; this is a no-op']);
  });

  it('an unknown issuer is 404 on the delta paths too', async () => {
    await fetched('issuer/nope/crl/delta/der', 404);
  });

  it('bad input is a 4xx naming the problem, never a 500', async () => {
    for (const bad of [['not a url'], ['http://a.test/{{issuer_id}}'], [`http://a.test/${'x'.repeat(3000)}`], { a: 1 }, 7]) {
      const r = await request('POST', 'config/urls', { delta_crl_distribution_points: bad });
      expect(r.status, r.text).toBe(400);
      expect((r.json!.errors as string[]).join(' ')).toMatch(/delta_crl_distribution_points/);
    }
    for (const ref of ['%00', 'x'.repeat(5000), '..%2F..', '%ff%fe']) {
      const r = await call(svc.app, 'GET', `/v1/pki/issuer/${ref}/crl/delta/der`);
      expect([400, 404], `${ref.slice(0, 20)}: ${r.status} ${r.text}`).toContain(r.status);
    }
  });
});

describe('a base and a delta', () => {
  let before: { certificate: string; serial_number: string };
  let after: { certificate: string; serial_number: string };
  let untouched: { certificate: string; serial_number: string };
  let complete = '';
  let delta = '';

  beforeAll(async () => {
    await ok('POST', 'config/crl', { auto_rebuild: true, enable_delta: true });
    [before, after, untouched] = [await issue('before.test'), await issue('after.test'), await issue('untouched.test')];
    await ok('POST', 'revoke', { serial_number: before.serial_number });
    await ok('GET', 'crl/rotate'); // the base: lists `before`
    await ok('POST', 'revoke', { serial_number: after.serial_number }); // after the base: on the delta only
    complete = await fetched('crl/pem');
    delta = await fetched('crl/delta/pem');
  });

  it('the complete CRL lists the certificate revoked before it, not the one after (auto_rebuild: no rebuild on revocation)', () => {
    const t = text(complete, 'crl');
    expect(serialsOf(t)).toEqual([hex(before.serial_number)]);
  });

  it('the delta lists the revocation after its base, carries the critical Delta CRL Indicator naming the base, and numbers above it', () => {
    const c = text(complete, 'crl');
    const d = text(delta, 'crl');
    expect(serialsOf(d)).toContain(hex(after.serial_number));
    expect(serialsOf(d)).not.toContain(hex(untouched.serial_number));
    expect(deltaBaseOf(d)).toBe(crlNumberOf(c));
    expect(crlNumberOf(d)).toBeGreaterThan(crlNumberOf(c));
    expect(d).not.toMatch(/Freshest CRL/);
    expect(verifyCrl(delta, caPem)).toMatchObject({ ok: true });
  });

  it('the complete CRL carries the Freshest CRL extension with the delta CRL distribution point', () => {
    const c = text(complete, 'crl');
    expect(c).toMatch(new RegExp(`X509v3 Freshest CRL:\\s*\\n\\s*Full Name:\\s*\\n\\s*URI:${BASE}/crl/delta`));
    expect(verifyCrl(complete, caPem)).toMatchObject({ ok: true });
  });

  it('certificates carry the Freshest CRL extension from config/urls delta_crl_distribution_points', () => {
    expect(text(after.certificate)).toMatch(new RegExp(`X509v3 Freshest CRL:\\s*\\n\\s*Full Name:\\s*\\n\\s*URI:${BASE}/crl/delta`));
  });

  it('openssl verify -crl_check -use_deltas: the certificate revoked after the base is caught only with the delta', () => {
    expect(verifyWithDeltas(after.certificate, caPem, [complete])).toMatchObject({ ok: true });
    const withDelta = verifyWithDeltas(after.certificate, caPem, [complete, delta]);
    expect(withDelta.ok).toBe(false);
    expect(withDelta.out).toMatch(/certificate revoked/);
    const beforeOut = verifyWithDeltas(before.certificate, caPem, [complete, delta]);
    expect(beforeOut.ok).toBe(false);
    expect(beforeOut.out).toMatch(/certificate revoked/);
    expect(verifyWithDeltas(untouched.certificate, caPem, [complete, delta])).toMatchObject({ ok: true });
    // Without -use_deltas openssl takes the complete CRL alone.
    expect(verifyChain(after.certificate, caPem, [], [complete])).toMatchObject({ ok: true });
  });

  it('GnuTLS certtool reads both (delta indicator shown) and verifies their signatures', () => {
    const d = certtool(['--crl-info', '--infile', '@d.pem'], { 'd.pem': delta });
    expect(d.ok, d.out).toBe(true);
    expect(d.out).toMatch(/Delta CRL Indicator \(2\.5\.29\.27\) \(critical\)|2\.5\.29\.27.*critical/i);
    const c = certtool(['--crl-info', '--infile', '@c.pem'], { 'c.pem': complete });
    expect(c.ok, c.out).toBe(true);
    expect(c.out).toMatch(/2\.5\.29\.46/);
    for (const crl of [complete, delta]) {
      const v = certtool(['--verify-crl', '--load-ca-certificate', '@ca.pem', '--infile', '@crl.pem'], { 'ca.pem': caPem, 'crl.pem': crl });
      expect(v.ok, v.out).toBe(true);
      expect(v.out).toMatch(/Verified/);
    }
  });

  it("Go's x509.ParseRevocationList parses both and checks their signatures", async () => {
    const c = await go.crl(complete, caPem);
    const d = await go.crl(delta, caPem);
    expect(c).toMatchObject({ ok: true });
    expect(d).toMatchObject({ ok: true });
    expect(Number(d.number)).toBeGreaterThan(Number(c.number));
  });

  it('the per-issuer delta paths and cert/delta-crl serve the same delta', async () => {
    const id = (await ok('GET', 'issuer/default')).issuer_id as string;
    expect((await fetched(`issuer/${id}/crl/delta/pem`)).trim()).toBe(delta.trim());
    expect(JSON.parse(await fetched(`issuer/${id}/crl/delta`)).data.crl.trim()).toBe(delta.trim());
    const der = await call(svc.app, 'GET', `/v1/pki/issuer/${id}/crl/delta/der`);
    expect(der.headers.get('content-type')).toBe('application/pkix-crl');
    const raw = await call(svc.app, 'GET', '/v1/pki/crl/delta');
    expect(raw.headers.get('content-type')).toBe('application/pkix-crl');
    expect(JSON.parse(await fetched('cert/delta-crl')).data.certificate.trim()).toBe(delta.trim());
  });

  it('crl/rotate-delta rebuilds the delta under a higher number on the same base', async () => {
    const r = await request('GET', 'crl/rotate-delta');
    expect(r.status, r.text).toBe(200);
    expect(r.json!.warnings ?? []).toEqual([]);
    const next = text(await fetched('crl/delta/pem'), 'crl');
    expect(crlNumberOf(next)).toBeGreaterThan(crlNumberOf(text(delta, 'crl')));
    expect(deltaBaseOf(next)).toBe(deltaBaseOf(text(delta, 'crl')));
  });

  it('a new complete CRL becomes the base of a fresh delta, and numbers never repeat', async () => {
    const oldComplete = crlNumberOf(text(complete, 'crl'));
    await ok('GET', 'crl/rotate');
    const c = text(await fetched('crl/pem'), 'crl');
    const d = text(await fetched('crl/delta/pem'), 'crl');
    expect(serialsOf(c).sort()).toEqual([hex(before.serial_number), hex(after.serial_number)].sort());
    expect(crlNumberOf(c)).toBeGreaterThan(oldComplete);
    expect(deltaBaseOf(d)).toBe(crlNumberOf(c));
    expect(crlNumberOf(d)).toBeGreaterThan(crlNumberOf(c));
  });

  it('disable: the complete CRL and the delta are empty, still signed and valid for openssl', async () => {
    await ok('POST', 'config/crl', { disable: true });
    const c = await fetched('crl/pem');
    const d = await fetched('crl/delta/pem');
    expect(serialsOf(text(c, 'crl'))).toEqual([]);
    expect(serialsOf(text(d, 'crl'))).toEqual([]);
    expect(text(d, 'crl')).toMatch(/Delta CRL Indicator: critical/);
    expect(verifyWithDeltas(after.certificate, caPem, [c, d])).toMatchObject({ ok: true });
    await ok('POST', 'config/crl', { disable: false });
  });
});
