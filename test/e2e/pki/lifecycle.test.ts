import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr, text, verifyChain, verifyCrl } from '../../helpers/openssl';

let svc: TestService;
let root = '';
let inter = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  const r = await post('pki/root/generate/internal', { common_name: 'Latchkey Root', ttl: '87600h', key_type: 'ec', key_bits: 384 });
  expect(r.status, r.text).toBe(200);
  root = r.json!.data.certificate;
  const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Latchkey Intermediate', key_type: 'rsa' });
  expect(g.status, g.text).toBe(200);
  const s = await post('pki/root/sign-intermediate', {
    csr: g.json!.data.csr,
    common_name: 'Latchkey Intermediate',
    ttl: '43800h',
    format: 'pem_bundle',
  });
  expect(s.status, s.text).toBe(200);
  inter = s.json!.data.certificate.split(/(?<=-----END CERTIFICATE-----)\n/)[0];
  const set = await post('pki_int/intermediate/set-signed', { certificate: `${inter}\n${root}` });
  expect(set.status, set.text).toBe(200);
  // Both certificates become issuers of pki_int; the intermediate is linked to the key intermediate/generate made, the root has none here.
  const [interId, rootId] = set.json!.data.imported_issuers as string[];
  expect(set.json!.data.mapping).toEqual({ [interId!]: g.json!.data.key_id, [rootId!]: '' });
  for (const [name, extra] of [
    ['web', { key_type: 'rsa' }],
    ['web-ec', { key_type: 'ec' }],
    ['web-ed', { key_type: 'ed25519' }],
    ['any', { key_type: 'any' }],
  ] as const) {
    const w = await post(`pki_int/roles/${name}`, { allowed_domains: 'example.com', allow_subdomains: true, max_ttl: '72h', ...extra });
    expect(w.status, w.text).toBe(200);
  }
});

describe('pki lifecycle, checked by openssl', () => {
  it('the root verifies itself and the intermediate chains to it', () => {
    expect(verifyChain(root, root).ok).toBe(true);
    expect(verifyChain(inter, root)).toMatchObject({ ok: true });
    expect(text(inter)).toMatch(/CA:TRUE/);
  });

  for (const role of ['web', 'web-ec', 'web-ed']) {
    it(`issues a ${role} leaf that verifies against root + intermediate`, async () => {
      const r = await post(`pki_int/issue/${role}`, {
        common_name: 'www.example.com',
        alt_names: 'api.example.com',
        ip_sans: '127.0.0.1',
        ttl: '1h',
      });
      expect(r.status, r.text).toBe(200);
      const d = r.json!.data;
      expect(d.serial_number).toMatch(/^([0-9a-f]{2}:){19}[0-9a-f]{2}$/);
      expect(d.ca_chain).toHaveLength(2);
      expect(d.private_key).toMatch(/PRIVATE KEY/);
      const v = verifyChain(d.certificate, root, [inter]);
      expect(v.ok, v.out).toBe(true);
      const t = text(d.certificate);
      expect(t).toMatch(/DNS:www\.example\.com, DNS:api\.example\.com, IP Address:127\.0\.0\.1/);
      expect(t).toMatch(/TLS Web Server Authentication, TLS Web Client Authentication/);
    });
  }

  it('signs an openssl CSR and signs verbatim; refuses a CA CSR verbatim', async () => {
    const csr = makeCsr(
      '/CN=svc.example.com',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
      ['-addext', 'subjectAltName=DNS:svc.example.com'],
    );
    const s = await post('pki_int/sign/any', { csr, common_name: 'ignored.example.com' });
    expect(s.status, s.text).toBe(200);
    expect(verifyChain(s.json!.data.certificate, root, [inter]).ok).toBe(true);
    expect(text(s.json!.data.certificate)).toMatch(/CN ?= ?svc\.example\.com/);
    const v = await post('pki_int/sign-verbatim', { csr, ttl: '1h' });
    expect(v.status, v.text).toBe(200);
    expect(verifyChain(v.json!.data.certificate, root, [inter]).ok).toBe(true);
    const caCsr = makeCsr(
      '/CN=evil CA',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
      ['-addext', 'basicConstraints=critical,CA:TRUE'],
    );
    const bad = await post('pki_int/sign-verbatim', { csr: caCsr });
    expect(bad.status).toBe(400);
    expect(bad.json!.errors[0]).toMatch(/sign-intermediate/);
  });

  it('revokes idempotently, the CRL verifies and lists the leaf, openssl -crl_check rejects it', async () => {
    const r = await post('pki_int/issue/web-ec', { common_name: 'gone.example.com' });
    const serial = r.json!.data.serial_number as string;
    const first = await post('pki_int/revoke', { serial_number: serial });
    expect(first.status, first.text).toBe(200);
    const again = await post('pki_int/revoke', { serial_number: serial.replace(/:/g, '-').toUpperCase() });
    expect(again.json!.data.revocation_time).toBe(first.json!.data.revocation_time);
    const crl = await call(svc.app, 'GET', '/v1/pki_int/crl/pem');
    expect(crl.status).toBe(200);
    expect(verifyCrl(crl.text, inter)).toMatchObject({ ok: true });
    expect(text(crl.text, 'crl')).toContain(serial.replace(/:/g, '').toUpperCase());
    const rootCrl = await call(svc.app, 'GET', '/v1/pki/crl/pem');
    const revoked = verifyChain(r.json!.data.certificate, root, [inter], [crl.text, rootCrl.text]);
    expect(revoked.ok).toBe(false);
    expect(revoked.out).toMatch(/certificate revoked/);
    const ok = await post('pki_int/issue/web-ec', { common_name: 'fine.example.com' });
    expect(verifyChain(ok.json!.data.certificate, root, [inter], [crl.text, rootCrl.text]).ok).toBe(true);
  });

  it('refuses to revoke the CA itself', async () => {
    const ca = await call(svc.app, 'GET', '/v1/pki/cert/ca');
    const serial = text(ca.json!.data.certificate).match(/Serial Number:\s*\n?\s*([0-9a-f:]+)/)![1]!;
    const r = await post('pki/revoke', { serial_number: serial });
    expect(r.status).toBe(400);
  });
});
