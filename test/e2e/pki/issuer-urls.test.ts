/**
 * Each issuer's certificates point to that issuer's CRL and certificate (issue 25, item 3; the
 * trap of hashicorp/vault#16060): an issuer's own URLs, or config/urls templated with
 * {{issuer_id}} and {{cluster_path}}; untemplated mount-wide URLs are the default issuer's, and
 * another issuer without URLs of its own issues nothing (400 naming the two ways out). The URL
 * each leaf names is fetched without a token and checked by openssl: the CRL of its issuer.
 * Also: URLs checked when written (delta_crl_distribution_points too), and
 * revocation_signature_algorithm honoured on the CRL, refused when it does not fit the key.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { text, verifyCrl } from '../../helpers/openssl';

type Data = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let svc: TestService;
const BASE = 'http://ca.test:8200/v1/pki';
const request = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, body });
async function ok(method: string, path: string, body?: unknown): Promise<Data> {
  const r = await request(method, path, body);
  expect([200, 204], `${method} ${path}: ${r.status} ${r.text}`).toContain(r.status);
  return (r.json?.data ?? {}) as Data;
}
async function refused(method: string, path: string, body: unknown, status: number, message: RegExp): Promise<void> {
  const r = await request(method, path, body);
  expect(r.status, r.text).toBe(status);
  expect((r.json!.errors as string[]).join(' ')).toMatch(message);
}
/** The CRL distribution point and CA issuers URLs of a certificate, as openssl prints them. */
function urlsOf(pem: string): { cdp: string[]; aia: string[] } {
  const t = text(pem);
  return {
    cdp: [...t.matchAll(/URI:(\S+)/g)].map((m) => m[1]!).filter((u) => /crl/.test(u)),
    aia: [...t.matchAll(/CA Issuers - URI:(\S+)/g)].map((m) => m[1]!),
  };
}
/** The path below the mount a URL of BASE names, fetched without a token. */
async function fetchedPem(url: string): Promise<string> {
  expect(url.startsWith(`${BASE}/`), url).toBe(true);
  const path = url.slice(BASE.length + 1).replace(/\/der$/, '/pem');
  const r = await call(svc.app, 'GET', `/v1/pki/${path}`);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  return r.text;
}

const ids = { a: '', b: '', aPem: '', bPem: '' };

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  await ok('POST', 'config/cluster', { path: BASE });
  const a = await ok('POST', 'issuers/generate/root/internal', { common_name: 'Root A', issuer_name: 'a', key_type: 'ec', ttl: '8760h' });
  const b = await ok('POST', 'issuers/generate/root/internal', {
    common_name: 'Root B',
    issuer_name: 'b',
    key_type: 'rsa',
    key_bits: 2048,
    ttl: '8760h',
  });
  Object.assign(ids, { a: a.issuer_id, b: b.issuer_id, aPem: a.certificate, bPem: b.certificate });
  await ok('POST', 'roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
});

describe('untemplated config/urls: the default issuer only', () => {
  it('the default issues with them; another issuer without URLs of its own is refused, naming both ways out', async () => {
    await ok('POST', 'config/urls', { crl_distribution_points: [`${BASE}/crl`], issuing_certificates: [`${BASE}/ca`] });
    const leaf = await ok('POST', 'issue/web', { common_name: 'x.example.com' });
    expect(urlsOf(leaf.certificate)).toEqual({ cdp: [`${BASE}/crl`], aia: [`${BASE}/ca`] });
    await refused('POST', 'issuer/b/issue/web', { common_name: 'y.example.com' }, 400, /not the default.*issuer\/<ref>.*enable_templating/);
  });
});

describe('templated config/urls: each issuer its own', () => {
  it("a leaf of each issuer names that issuer's CRL and certificate, fetched without a token and signed by it", async () => {
    await ok('POST', 'config/urls', {
      enable_templating: true,
      crl_distribution_points: ['{{cluster_path}}/issuer/{{issuer_id}}/crl/der'],
      issuing_certificates: ['{{cluster_path}}/issuer/{{issuer_id}}/der'],
    });
    expect(await ok('GET', 'config/urls')).toMatchObject({ enable_templating: true });
    for (const [ref, id, pem] of [
      ['a', ids.a, ids.aPem],
      ['b', ids.b, ids.bPem],
    ] as const) {
      const leaf = await ok('POST', `issuer/${ref}/issue/web`, { common_name: `${ref}.example.com` });
      const urls = urlsOf(leaf.certificate);
      expect(urls).toEqual({ cdp: [`${BASE}/issuer/${id}/crl/der`], aia: [`${BASE}/issuer/${id}/der`] });
      expect(verifyCrl(await fetchedPem(urls.cdp[0]!), pem)).toMatchObject({ ok: true });
      expect((await fetchedPem(urls.aia[0]!)).trim()).toBe(pem.trim());
    }
  });

  it('a new self-signed root carries none of the templated URLs (no issuer id to fill them with yet)', async () => {
    const c = await ok('POST', 'issuers/generate/root/internal', { common_name: 'Root C', issuer_name: 'c', key_type: 'ec' });
    expect(urlsOf(c.certificate)).toEqual({ cdp: [], aia: [] });
  });

  it('an intermediate signed by an issuer names its signer', async () => {
    const csr = await ok('POST', 'intermediate/generate/internal', { common_name: 'Int under B', key_type: 'ec' });
    const int = await ok('POST', 'issuer/b/sign-intermediate', { csr: csr.csr, common_name: 'Int under B', ttl: '24h' });
    expect(urlsOf(int.certificate)).toEqual({ cdp: [`${BASE}/issuer/${ids.b}/crl/der`], aia: [`${BASE}/issuer/${ids.b}/der`] });
  });

  it('{{cluster_path}} without config/cluster path: issuing is refused, naming it', async () => {
    await ok('POST', 'config/cluster', { path: '' });
    await refused('POST', 'issue/web', { common_name: 'z.example.com' }, 400, /\{\{cluster_path\}\}.*config\/cluster/);
    await ok('POST', 'config/cluster', { path: BASE });
  });
});

describe("an issuer's own URLs win over config/urls", () => {
  it('set on b, templated: its leaves carry them; a has the mount templates still', async () => {
    await ok('PATCH', 'issuer/b', {
      enable_aia_url_templating: true,
      crl_distribution_points: ['http://crl.test/{{issuer_id}}.crl'],
    });
    expect(urlsOf((await ok('POST', 'issuer/b/issue/web', { common_name: 'b2.example.com' })).certificate)).toEqual({
      cdp: [`http://crl.test/${ids.b}.crl`],
      aia: [],
    });
    expect(urlsOf((await ok('POST', 'issuer/a/issue/web', { common_name: 'a2.example.com' })).certificate).cdp).toEqual([
      `${BASE}/issuer/${ids.a}/crl/der`,
    ]);
  });
});

describe('URLs are checked when written', () => {
  const cases: [string, Data, RegExp][] = [
    ['a template with templating off', { crl_distribution_points: ['{{cluster_path}}/crl'] }, /holds a template, but templating is off/],
    ['an unknown template', { enable_templating: true, crl_distribution_points: ['{{cluster_aia_path}}/crl'] }, /unknown template/],
    ['no URL', { issuing_certificates: ['not a url'] }, /invalid URL/],
    ['a relative path', { ocsp_servers: ['/v1/pki/ocsp'] }, /invalid URL/],
    ['non-ASCII', { crl_distribution_points: ['http://exämple.test/crl'] }, /printable ASCII/],
    ['too long', { crl_distribution_points: [`http://a.test/${'x'.repeat(2100)}`] }, /longer than 2048/],
  ];
  for (const [what, body, message] of cases) {
    it(`config/urls: ${what} is 400`, async () => {
      await refused('POST', 'config/urls', body, 400, message);
    });
    it(`issuer/<ref>: ${what} is 400`, async () => {
      const { enable_templating: templating = false, ...urls } = body;
      const issuerBody = { ...urls, enable_aia_url_templating: templating };
      await refused('PATCH', 'issuer/a', issuerBody, 400, message);
    });
  }

  it('delta_crl_distribution_points is checked like the other URLs and kept (test/e2e/pki/crl-delta.test.ts uses it)', async () => {
    await refused('PATCH', 'issuer/a', { delta_crl_distribution_points: ['not a url'] }, 400, /delta_crl_distribution_points/);
    const set = await ok('PATCH', 'issuer/a', { delta_crl_distribution_points: ['http://a.test/delta.crl'] });
    expect(set).toMatchObject({ delta_crl_distribution_points: ['http://a.test/delta.crl'] });
    expect(await ok('PATCH', 'issuer/a', { delta_crl_distribution_points: [] })).toMatchObject({ delta_crl_distribution_points: [] });
  });
});

describe('revocation_signature_algorithm', () => {
  it("is honoured on the RSA issuer's CRL (openssl shows the hash)", async () => {
    await ok('PATCH', 'issuer/b', { revocation_signature_algorithm: 'SHA384WithRSA' });
    await ok('GET', 'crl/rotate');
    const crl = (await call(svc.app, 'GET', '/v1/pki/issuer/b/crl/pem')).text;
    expect(text(crl, 'crl')).toMatch(/Signature Algorithm: sha384WithRSAEncryption/);
    expect(verifyCrl(crl, ids.bPem)).toMatchObject({ ok: true });
  });

  it("is refused when it does not fit the key, naming the key's", async () => {
    await refused(
      'PATCH',
      'issuer/a',
      { revocation_signature_algorithm: 'SHA256WithRSA' },
      400,
      /does not fit the issuer's ec key: use ECDSAWithSHA256/,
    );
    await refused('PATCH', 'issuer/a', { revocation_signature_algorithm: 'MD5WithRSA' }, 400, /does not fit/);
    expect(await ok('PATCH', 'issuer/a', { revocation_signature_algorithm: 'ECDSAWithSHA256' })).toMatchObject({
      revocation_signature_algorithm: 'ECDSAWithSHA256',
    });
  });
});
