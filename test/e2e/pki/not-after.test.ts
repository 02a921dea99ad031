/**
 * not_after through the app is held to the same maximum as ttl (hashicorp/vault#29928): the
 * role's max_ttl, else the mount's maximum lease TTL, and then the issuer's own expiry. Each
 * certificate's real NotAfter is read from the DER (@peculiar/x509), not from `expiration`.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Mount } from '../../../lib/config';
import { pkiEngine } from '../../../lib/pki/engine';
import { makeCsr } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

const HOUR = 3_600_000;
// Midnight today (UTC), fixed within the test.
const clock = Math.floor(Date.now() / 86_400_000) * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
const THREE_YEARS = iso(clock + 3 * 8760 * HOUR);

/** pki holds the root (maximum 2 years); pki_int issues under an intermediate of 1 year (maximum 30 days). */
const MOUNTS: Mount[] = [
  { path: 'pki', type: 'pki', description: 'root', defaultLeaseTtl: 3600, maxLeaseTtl: 17_520 * 3600 },
  { path: 'pki_int', type: 'pki', description: 'intermediate', defaultLeaseTtl: 3600, maxLeaseTtl: 720 * 3600 },
];
const INTERMEDIATE_TTL = 8760 * HOUR;

let svc: TestService;
let rootAnswer: Awaited<ReturnType<typeof post>>;
let csr = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const notAfterOf = (pem: string) => new x509.X509Certificate(pem).notAfter.getTime();

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => clock, mounts: MOUNTS });
  rootAnswer = await post('pki/root/generate/internal', {
    common_name: 'Not-After Root',
    key_type: 'ec',
    not_after: '9999-12-31T23:59:59Z',
  });
  expect(rootAnswer.status, rootAnswer.text).toBe(200);
  const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Not-After Intermediate', key_type: 'ec' });
  const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'Not-After Intermediate', ttl: '8760h' });
  expect(s.status, s.text).toBe(200);
  const set = await post('pki_int/intermediate/set-signed', {
    certificate: `${s.json!.data.certificate}\n${rootAnswer.json!.data.certificate}`,
  });
  expect(set.status, set.text).toBe(200);
  const role = (name: string, extra: Record<string, unknown>) =>
    post(`pki_int/roles/${name}`, { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ...extra });
  for (const [name, extra] of [
    ['capped', { max_ttl: '72h' }],
    ['open', {}],
    ['long', { max_ttl: '87600h' }],
    ['fixed', { max_ttl: '72h', not_after: THREE_YEARS }],
  ] as const)
    expect((await role(name, extra)).status).toBe(200);
  csr = makeCsr(
    '/CN=a.example.com',
    ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
    ['-addext', 'subjectAltName=DNS:a.example.com'],
  );
});

const ENDPOINTS = {
  issue: (role: string, body: Record<string, unknown>) => post(`pki_int/issue/${role}`, { common_name: 'a.example.com', ...body }),
  sign: (role: string, body: Record<string, unknown>) => post(`pki_int/sign/${role}`, { csr, common_name: 'a.example.com', ...body }),
  'sign-verbatim': (role: string, body: Record<string, unknown>) => post(`pki_int/sign-verbatim/${role}`, { csr, ...body }),
};

describe.each(Object.keys(ENDPOINTS) as (keyof typeof ENDPOINTS)[])('%s/<role> with not_after three years out', (endpoint) => {
  const leaf = ENDPOINTS[endpoint];

  it("beyond the role's max_ttl (72h): the certificate ends at max_ttl, with a warning", async () => {
    const r = await leaf('capped', { not_after: THREE_YEARS });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 72 * HOUR);
    expect(r.json!.data.expiration).toBe((clock + 72 * HOUR) / 1000);
    expect(r.json!.warnings.join(' ')).toMatch(/not_after .* longer than permitted maxTTL "72h0m0s", so maxTTL is being used/);
  });

  it("beyond the mount's maximum (720h), the role has no max_ttl: the certificate ends at the mount's maximum", async () => {
    const r = await leaf('open', { not_after: THREE_YEARS });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 720 * HOUR);
    expect(r.json!.warnings.join(' ')).toMatch(/maxTTL "720h0m0s", so maxTTL is being used/);
  });

  it("beyond the CA's expiry, within the role's max_ttl (87600h): refused, as a ttl would be", async () => {
    const r = await leaf('long', { not_after: THREE_YEARS });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/beyond the expiration of the CA certificate/);
    expect((await leaf('long', { ttl: '26280h' })).json!.errors[0]).toMatch(/beyond the expiration of the CA certificate/);
  });

  it('within every limit: the certificate ends exactly at not_after, without a warning', async () => {
    const r = await leaf('long', { not_after: iso(clock + 100 * HOUR) });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 100 * HOUR);
    expect(r.json!.warnings).toBeNull();
  });
});

describe('the other signing paths', () => {
  it("sign-verbatim without a role: not_after is held to the mount's maximum", async () => {
    const r = await post('pki_int/sign-verbatim', { csr, not_after: THREE_YEARS });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 720 * HOUR);
  });

  it("root/generate and root/sign-intermediate: not_after is held to the mount's maximum (an intermediate may outlive its signer)", async () => {
    expect(notAfterOf(rootAnswer.json!.data.certificate)).toBe(clock + 17_520 * HOUR);
    expect(rootAnswer.json!.warnings.join(' ')).toMatch(/maxTTL "17520h0m0s", so maxTTL is being used/);
    const g = await post('pki_int/intermediate/generate/exported', { common_name: 'Another Intermediate', key_type: 'ec' });
    const r = await post('pki/root/sign-intermediate', {
      csr: g.json!.data.csr,
      common_name: 'Another',
      not_after: '9999-12-31T23:59:59Z',
    });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 17_520 * HOUR);
  });

  it('the intermediate itself ends where it was asked to (the CA expiry above is real)', async () => {
    const ca = await call(svc.app, 'GET', '/v1/pki_int/cert/ca');
    expect(notAfterOf(ca.json!.data.certificate)).toBe(clock + INTERMEDIATE_TTL);
  });
});

describe("a role's own not_after", () => {
  it("is held to the role's max_ttl; the request's not_after cannot replace it, and a ttl beside it is refused", async () => {
    const r = await ENDPOINTS.issue('fixed', {});
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + 72 * HOUR);
    const asked = await ENDPOINTS.sign('fixed', { not_after: iso(clock + 10 * HOUR) });
    expect(notAfterOf(asked.json!.data.certificate)).toBe(clock + 72 * HOUR);
    expect(asked.json!.warnings).toContain("the role's not_after is used; the request's not_after is ignored");
    const ttl = await ENDPOINTS.issue('fixed', { ttl: '1h' });
    expect(ttl.status).toBe(400);
    expect(ttl.json!.errors[0]).toMatch(/either ttl or not_after/);
  });

  it('does not apply to sign-verbatim/<role>, which takes only the role’s ttl and max_ttl', async () => {
    const r = await ENDPOINTS['sign-verbatim']('fixed', { ttl: '1h' });
    expect(r.status, r.text).toBe(200);
    expect(notAfterOf(r.json!.data.certificate)).toBe(clock + HOUR);
  });
});
