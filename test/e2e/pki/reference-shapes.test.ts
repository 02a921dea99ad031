/**
 * Reference behaviour and the RFCs on what issued certificates carry: sign-verbatim copies the
 * CSR's extensions, revocation times in RFC 3339, cert/ca_chain as one PEM string, key usages
 * that fit the key type, and a validity of exactly ttl plus the backdate.
 */
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureAlgorithm } from '../../../lib/keys/signer';
import { generateKey, LocalSigner } from '../../../lib/keys/signer-local';
import { implicit, seq, utf8 } from '../../../lib/pki/der/asn1';
import { buildCsr } from '../../../lib/pki/der/csr';
import { ext } from '../../../lib/pki/der/extensions';
import { encodeName } from '../../../lib/pki/der/name';
import { pkiEngine } from '../../../lib/pki/engine';
import { toPem } from '../../../lib/pki/pem';
import { GO_KEY_USAGE as KU, goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr, text } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
let root = '';
const post = (path: string, body: unknown, s = svc) => call(s.app, 'POST', `/v1/${path}`, { token: s.root, body });
const ok = async (path: string, body: unknown, s = svc) => {
  const r = await post(path, body, s);
  expect(r.status, r.text).toBe(200);
  return r.json!.data as Record<string, string>;
};
const ecCsr = (extra: string[] = []) => makeCsr('/CN=v.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], extra);

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
  root = (await ok('pki/root/generate/internal', { common_name: 'Shapes Root', key_type: 'ec', ttl: '1000h' })).certificate!;
  for (const t of ['rsa', 'ec', 'ed25519', 'any'])
    expect((await post(`pki/roles/${t}`, { allowed_domains: 'example.com', allow_subdomains: true, key_type: t })).status).toBe(200);
}, 30_000);

afterAll(async () => {
  await go?.close();
});

describe('sign-verbatim', () => {
  it('copies every extension the CSR requests except basicConstraints, in place of its own', async () => {
    const csr = ecCsr([
      '-addext',
      'subjectAltName=DNS:v.example.com,URI:spiffe://example.com/v',
      '-addext',
      'keyUsage=critical,digitalSignature',
      '-addext',
      'extendedKeyUsage=clientAuth',
      '-addext',
      'certificatePolicies=1.2.3.4',
      '-addext',
      '1.2.3.4.5.6=ASN1:UTF8String:requested-value',
      '-addext',
      'basicConstraints=critical,CA:FALSE',
    ]);
    const d = await ok('pki/sign-verbatim', { csr, ttl: '1h' });
    const g = await go.verify(d.certificate!, [root]);
    expect(g, g.error).toMatchObject({ ok: true, key_usage: KU.digitalSignature, ext_key_usage: [2], dns_names: ['v.example.com'] });
    expect(g.extensions).toEqual(expect.arrayContaining(['1.2.3.4.5.6', '2.5.29.32', '2.5.29.17', '2.5.29.15', '2.5.29.37']));
    expect(g.extensions).not.toContain('2.5.29.19');
    expect(new Set(g.extensions).size).toBe(g.extensions!.length);
    expect(text(d.certificate!)).toMatch(/requested-value/);
    expect(text(d.certificate!)).toMatch(/Policy: 1\.2\.3\.4/);
    expect(text(d.certificate!)).toMatch(/URI:spiffe:\/\/example\.com\/v/);
  });

  it('refuses a CSR that requests one extension twice', async () => {
    // openssl will not make such a CSR; the engine's own CSR builder will.
    const signer = new LocalSigner(await generateKey('ec', 256));
    const twice = [ext('1.2.3.4.5.6', false, utf8('a')), ext('1.2.3.4.5.6', false, utf8('b'))];
    const csr = toPem(
      'CERTIFICATE REQUEST',
      await buildCsr(encodeName({ commonName: 'v.example.com' }), signer, signatureAlgorithm(signer), twice),
    );
    const r = await post('pki/sign-verbatim', { csr });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/extension is requested twice/);
  });

  it("keeps its own authorityKeyIdentifier over a CSR's, so the certificate chains and lands on its CA's CRL", async () => {
    const signer = new LocalSigner(await generateKey('ec', 256));
    const forged = ext('2.5.29.35', false, seq(implicit(0, Buffer.alloc(20, 7))));
    const csr = toPem(
      'CERTIFICATE REQUEST',
      await buildCsr(encodeName({ commonName: 'v.example.com' }), signer, signatureAlgorithm(signer), [forged]),
    );
    const d = await ok('pki/sign-verbatim', { csr, ttl: '1h' });
    expect(await go.verify(d.certificate!, [root])).toMatchObject({ ok: true });
    await ok('pki/revoke', { serial_number: d.serial_number });
    const crl = await go.crl((await call(svc.app, 'GET', '/v1/pki/crl/pem')).text, root);
    expect(crl.revoked).toContain(d.serial_number!.replace(/:/g, '').replace(/^0+/, ''));
  });

  it('refuses a CSR extension whose value is not one DER element', async () => {
    const signer = new LocalSigner(await generateKey('ec', 256));
    const broken = ext('1.2.3.4.5.6', false, Buffer.from([0x0c, 0x05, 0x61]));
    const csr = toPem(
      'CERTIFICATE REQUEST',
      await buildCsr(encodeName({ commonName: 'v.example.com' }), signer, signatureAlgorithm(signer), [broken]),
    );
    const r = await post('pki/sign-verbatim', { csr });
    expect(r.status, r.text).toBe(400);
  });
});

describe('revocation times and the chain, as the reference answers them', () => {
  it('cert/<serial> and revoke answer revocation_time_rfc3339 ("" while not revoked)', async () => {
    const d = await ok('pki/issue/ec', { common_name: 'r.example.com', ttl: '1h' });
    const before = await call(svc.app, 'GET', `/v1/pki/cert/${d.serial_number}`);
    expect(before.json!.data).toMatchObject({ revocation_time: 0, revocation_time_rfc3339: '' });
    const rev = await ok('pki/revoke', { serial_number: d.serial_number });
    expect(rev.state).toBe('revoked');
    expect(rev.revocation_time_rfc3339).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
    expect(Math.floor(Date.parse(rev.revocation_time_rfc3339!) / 1000)).toBe(rev.revocation_time);
    const after = await call(svc.app, 'GET', `/v1/pki/cert/${d.serial_number}`);
    expect(after.json!.data).toMatchObject({ revocation_time: rev.revocation_time, revocation_time_rfc3339: rev.revocation_time_rfc3339 });
  });

  it('cert/ca_chain answers ca_chain as one PEM string', async () => {
    const r = await call(svc.app, 'GET', '/v1/pki/cert/ca_chain');
    expect(r.json!.data.ca_chain).toBe(root.trim());
  });
});

describe('key usage fits the key type (RFC 8813, RFC 8410 / 9295)', () => {
  const { digitalSignature: ds, keyEncipherment: ke, keyAgreement: ka } = KU;
  for (const [role, usage] of [
    ['rsa', ds | ke | ka],
    ['ec', ds | ka],
    ['ed25519', ds],
  ] as const) {
    it(`an issued ${role} leaf with the default key_usage has key usage ${usage}`, async () => {
      const d = await ok(`pki/issue/${role}`, { common_name: 'k.example.com', ttl: '1h' });
      const g = await go.verify(d.certificate!, [root]);
      expect(g, g.error).toMatchObject({ ok: true, key_usage: usage });
    });
  }

  it('sign and sign-verbatim of EC and Ed25519 CSRs carry no keyEncipherment either', async () => {
    const ed = makeCsr('/CN=e.example.com', ['-newkey', 'ed25519']);
    for (const [csr, usage] of [
      [ecCsr(), ds | ka],
      [ed, ds],
    ] as const) {
      for (const path of ['pki/sign/any', 'pki/sign-verbatim']) {
        const d = await ok(path, { csr, common_name: 'k.example.com', ttl: '1h' });
        expect((await go.verify(d.certificate!, [root])).key_usage).toBe(usage);
      }
    }
  });
});

describe('validity', () => {
  it('is exactly ttl plus the 30 s backdate, however long the key takes (a clock that moves on every read)', async () => {
    let t = Date.now();
    const slow = await createTestService({ engines: [pkiEngine], now: () => (t += 1500) });
    const span = (pem: string) => {
      const c = new X509Certificate(pem);
      return (Date.parse(c.validTo) - Date.parse(c.validFrom)) / 1000;
    };
    const r = await ok('pki/root/generate/internal', { common_name: 'Slow Root', key_type: 'rsa', ttl: '1000h' }, slow);
    expect(span(r.certificate!)).toBe(1000 * 3600 + 30);
    await post('pki/roles/rsa', { allow_any_name: true, key_type: 'rsa' }, slow);
    await post('pki/roles/any', { allow_any_name: true, key_type: 'any' }, slow);
    expect(span((await ok('pki/issue/rsa', { common_name: 'a.example.com', ttl: '1h' }, slow)).certificate!)).toBe(3630);
    expect(span((await ok('pki/sign/any', { csr: ecCsr(), ttl: '1h' }, slow)).certificate!)).toBe(3630);
    expect(span((await ok('pki/sign-verbatim', { csr: ecCsr(), ttl: '1h' }, slow)).certificate!)).toBe(3630);
    const g = await ok('pki_int/intermediate/generate/internal', { common_name: 'Slow Int', key_type: 'ec' }, slow);
    expect(span((await ok('pki/root/sign-intermediate', { csr: g.csr, common_name: 'Slow Int', ttl: '100h' }, slow)).certificate!)).toBe(
      100 * 3600 + 30,
    );
  });
});
