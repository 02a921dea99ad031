/** Hostile input on every PKI write path: always a 4xx naming a problem, never a 5xx, nothing half-written. */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });

const GARBAGE: unknown[] = [
  'garbage',
  '',
  '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
  '-----BEGIN CERTIFICATE REQUEST-----\nMAA=\n-----END CERTIFICATE REQUEST-----',
  '-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----',
  `-----BEGIN CERTIFICATE-----\n${Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]).toString('base64')}\n-----END CERTIFICATE-----`,
  `-----BEGIN CERTIFICATE-----\n${Buffer.alloc(500_000, 0x30).toString('base64')}\n-----END CERTIFICATE-----`,
  'ü😀\u0000',
  12,
  true,
  ['a', 'b'],
  { nested: { x: 1 } },
  null,
];

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  await post('pki/root/generate/internal', { common_name: 'Hostile Root', key_type: 'ec', ttl: '8760h' });
  await post('pki/roles/r', { allow_any_name: true, key_type: 'any' });
});

describe('hostile input', () => {
  const cases: [string, string][] = [
    ['pki/root/sign-intermediate', 'csr'],
    ['pki/root/sign-self-issued', 'certificate'],
    ['pki/intermediate/set-signed', 'certificate'],
    ['pki/config/ca', 'pem_bundle'],
    ['pki/sign/r', 'csr'],
    ['pki/sign-verbatim', 'csr'],
    ['pki/sign-verbatim/r', 'csr'],
    ['pki/revoke', 'serial_number'],
    ['pki/issue/r', 'common_name'],
    ['pki/issue/r', 'ttl'],
    ['pki/issue/r', 'ip_sans'],
    ['pki/issue/r', 'other_sans'],
    ['pki/root/generate/internal', 'common_name'],
    ['pki/config/urls', 'issuing_certificates'],
    ['pki/config/crl', 'expiry'],
    ['pki/tidy', 'safety_buffer'],
  ];
  for (const [path, field] of cases) {
    it(`${path}: garbage in ${field} is a 4xx, never a 5xx`, async () => {
      for (const value of GARBAGE) {
        const r = await post(path, { common_name: 'x.example.com', [field]: value });
        expect(r.status, `${field}=${JSON.stringify(value)?.slice(0, 60)} -> ${r.text.slice(0, 200)}`).toBeLessThan(500);
        if (r.status >= 400) expect(r.json!.errors.length, r.text).toBeGreaterThan(0);
      }
    });
  }

  it('the CA is untouched by all of it, and still issues', async () => {
    const ca = await call(svc.app, 'GET', '/v1/pki/cert/ca');
    expect(ca.json!.data.certificate).toMatch(/BEGIN CERTIFICATE/);
    expect((await post('pki/issue/r', { common_name: 'still.example.com', key_type: 'ec' })).status).toBe(400); // key_type any cannot issue
    await post('pki/roles/ec', { allow_any_name: true, key_type: 'ec' });
    const ok = await post('pki/issue/ec', { common_name: 'still.example.com', ttl: '1h' });
    expect(ok.status, ok.text).toBe(200);
  });

  it('odd role and serial path segments are 4xx', async () => {
    for (const seg of ['%00', '..%2f', 'x'.repeat(300), '%20', 'a%2Fb']) {
      const r = await call(svc.app, 'GET', `/v1/pki/roles/${seg}`, { token: svc.root });
      expect(r.status, seg).toBeGreaterThanOrEqual(400);
      expect(r.status, seg).toBeLessThan(500);
      const c = await call(svc.app, 'GET', `/v1/pki/cert/${seg}`);
      expect(c.status, seg).toBeLessThan(500);
    }
  });
});
