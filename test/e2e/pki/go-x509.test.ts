/**
 * Go's crypto/x509 as a verifier: every kind of certificate the engine makes (roots of each key
 * type, an intermediate with permitted_dns_domains, leaves from issue, sign and sign-verbatim)
 * parses and Verifies, and every CRL passes ParseRevocationList + CheckSignatureFrom.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
let root = '';
let inter = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const ok = async (path: string, body: unknown) => {
  const r = await post(path, body);
  expect(r.status, r.text).toBe(200);
  return r.json!.data as Record<string, string>;
};
const get = async (path: string) => (await call(svc.app, 'GET', `/v1/${path}`)).text;

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
  root = (await ok('pki/root/generate/internal', { common_name: 'Example Root CA', ttl: '87600h', key_type: 'ec', key_bits: 384 }))
    .certificate!;
  const csr = (await ok('pki_int/intermediate/generate/internal', { common_name: 'Example Intermediate CA', key_type: 'rsa' })).csr;
  inter = (
    await ok('pki/root/sign-intermediate', {
      csr,
      common_name: 'Example Intermediate CA',
      ttl: '43800h',
      permitted_dns_domains: 'example.com',
    })
  ).certificate!;
  expect((await post('pki_int/intermediate/set-signed', { certificate: `${inter}\n${root}` })).status).toBe(200);
  for (const [name, extra] of [
    ['rsa', { key_type: 'rsa' }],
    ['ec', { key_type: 'ec' }],
    ['ed', { key_type: 'ed25519' }],
    ['any', { key_type: 'any' }],
    ['people', { key_type: 'ec', allow_any_name: true, enforce_hostnames: false }],
  ] as const) {
    expect(
      (await post(`pki_int/roles/${name}`, { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '72h', ...extra })).status,
    ).toBe(200);
  }
}, 60_000);

afterAll(async () => {
  await go?.close();
});

describe("Go's crypto/x509", () => {
  it('parses and verifies the root and the intermediate; a CN that is not a host name is no dNSName', async () => {
    const r = await go.verify(root, [root]);
    expect(r, r.error).toMatchObject({ ok: true, is_ca: true });
    expect(r.dns_names).toBeNull();
    const i = await go.verify(inter, [root]);
    expect(i, i.error).toMatchObject({ ok: true, is_ca: true, permitted_dns_domains: ['example.com'], chain_length: 2 });
    expect(i.dns_names).toBeNull();
  });

  for (const role of ['rsa', 'ec', 'ed']) {
    it(`verifies an issued ${role} leaf under the name-constrained intermediate, host name checked`, async () => {
      const d = await ok(`pki_int/issue/${role}`, { common_name: 'www.example.com', alt_names: 'api.example.com', ttl: '1h' });
      const v = await go.verify(d.certificate!, [root], [inter], 'api.example.com');
      expect(v, v.error).toMatchObject({ ok: true, dns_names: ['www.example.com', 'api.example.com'], chain_length: 3 });
    });
  }

  it("a person's name as CN (allow_any_name) stays out of the SANs, so Go verifies under permitted_dns_domains", async () => {
    const d = await ok('pki_int/issue/people', { common_name: 'John Smith', ttl: '1h' });
    const v = await go.verify(d.certificate!, [root], [inter]);
    expect(v, v.error).toMatchObject({ ok: true, dns_names: null });
    const mail = await ok('pki_int/issue/people', { common_name: 'john@example.com', ttl: '1h' });
    expect(await go.verify(mail.certificate!, [root], [inter])).toMatchObject({ ok: true, dns_names: null, emails: ['john@example.com'] });
    const wild = await post('pki_int/roles/wild', {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      allow_wildcard_certificates: true,
    });
    expect(wild.status).toBe(200);
    const w = await ok('pki_int/issue/wild', { common_name: '*.example.com', ttl: '1h' });
    expect(await go.verify(w.certificate!, [root], [inter], 'a.example.com')).toMatchObject({ ok: true, dns_names: ['*.example.com'] });
  });

  it('verifies leaves from sign (RSA, EC P-384, Ed25519 CSRs) and sign-verbatim', async () => {
    const csrs = [
      makeCsr('/CN=r.example.com', ['-newkey', 'rsa:2048']),
      makeCsr('/CN=p.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']),
      makeCsr('/CN=e.example.com', ['-newkey', 'ed25519'], ['-addext', 'subjectAltName=DNS:e.example.com']),
    ];
    for (const csr of csrs) {
      const s = await ok('pki_int/sign/any', { csr, ttl: '1h' });
      const v = await go.verify(s.certificate!, [root], [inter]);
      expect(v, v.error).toMatchObject({ ok: true });
      const vb = await ok('pki_int/sign-verbatim', { csr, ttl: '1h' });
      const vv = await go.verify(vb.certificate!, [root], [inter]);
      expect(vv, vv.error).toMatchObject({ ok: true });
    }
  });

  it('parses both CRLs and checks their signatures; the revoked serial is listed', async () => {
    const d = await ok('pki_int/issue/ec', { common_name: 'gone.example.com', ttl: '1h' });
    await ok('pki_int/revoke', { serial_number: d.serial_number });
    const crl = await go.crl(await get('pki_int/crl/pem'), inter);
    expect(crl, crl.error).toMatchObject({ ok: true });
    expect(crl.revoked).toContain(d.serial_number!.replace(/:/g, '').replace(/^0+/, ''));
    const rootCrl = await go.crl(await get('pki/crl/pem'), root);
    expect(rootCrl, rootCrl.error).toMatchObject({ ok: true, revoked: null });
  });

  for (const [keyType, bits] of [
    ['ed25519', 0],
    ['rsa', 3072],
    ['ec', 256],
  ] as const) {
    it(`a new ${keyType} root: root, leaf and CRL verify`, async () => {
      expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root })).status).toBe(204);
      const r = (
        await ok('pki/root/generate/internal', { common_name: `Example ${keyType} Root`, key_type: keyType, key_bits: bits, ttl: '1000h' })
      ).certificate!;
      expect(await go.verify(r, [r])).toMatchObject({ ok: true });
      await post('pki/roles/any', { allow_any_name: true, key_type: 'ec' });
      const leaf = await ok('pki/issue/any', { common_name: 'leaf.example.net', ttl: '1h' });
      const lv = await go.verify(leaf.certificate!, [r], [], 'leaf.example.net');
      expect(lv, lv.error).toMatchObject({ ok: true });
      await ok('pki/revoke', { serial_number: leaf.serial_number });
      const c = await go.crl(await get('pki/crl/pem'), r);
      expect(c, c.error).toMatchObject({ ok: true, revoked: [leaf.serial_number!.replace(/:/g, '').replace(/^0+/, '')] });
    });
  }
});
