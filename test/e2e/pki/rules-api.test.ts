/** Role rules through the app: what issue and sign put into certificates, and what they refuse. */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { makeCsr, text, verifyChain } from '../../helpers/openssl';

let svc: TestService;
// Midnight today (UTC): real enough for openssl's clock, fixed within the test.
const clock = Math.floor(Date.now() / 86_400_000) * 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
const opensslDate = (ms: number) => {
  const d = new Date(ms);
  const mon = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  return `${mon} ${String(d.getUTCDate()).padStart(2, ' ')} ${d.toISOString().slice(11, 19)} ${d.getUTCFullYear()} GMT`;
};
let root = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const role = (name: string, body: Record<string, unknown>) =>
  post(`pki/roles/${name}`, { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ...body });
const ecCsr = (subj = '/CN=csr.example.com', extra: string[] = []) =>
  makeCsr(subj, ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], extra);

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => clock });
  const r = await post('pki/root/generate/internal', { common_name: 'Rules Root', ttl: '8760h', key_type: 'rsa' });
  expect(r.status, r.text).toBe(200);
  root = r.json!.data.certificate;
});

describe('roles CRUD', () => {
  it('writes, reads back in wire form, lists and deletes', async () => {
    const w = await role('crud', { ttl: '1h', max_ttl: '2h', ou: 'a,b' });
    expect(w.status, w.text).toBe(200);
    const r = await call(svc.app, 'GET', '/v1/pki/roles/crud', { token: svc.root });
    expect(r.json!.data).toMatchObject({
      ttl: '1h0m0s',
      max_ttl: '2h0m0s',
      allowed_domains: ['example.com'],
      allow_localhost: true,
      server_flag: true,
      key_type: 'ec',
      key_bits: 256,
      ou: ['a', 'b'],
      allowed_uri_sans: [],
      allowed_other_sans: [],
    });
    const list = await call(svc.app, 'LIST', '/v1/pki/roles', { token: svc.root });
    expect(list.json!.data.keys).toContain('crud');
    expect((await call(svc.app, 'DELETE', '/v1/pki/roles/crud', { token: svc.root })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/pki/roles/crud', { token: svc.root })).status).toBe(404);
  });

  it('refuses bad role settings with a 400 naming the problem', async () => {
    for (const [body, msg] of [
      [{ key_type: 'rsa', key_bits: 1024 }, /bit length/],
      [{ key_type: 'ec', key_bits: 255 }, /bit length/],
      [{ key_type: 'dsa' }, /key_type/],
      [{ ttl: '3h', max_ttl: '1h' }, /ttl/],
      [{ signature_bits: 128 }, /signature_bits/],
      [{ key_usage: 'Telepathy' }, /key_usage/],
      [{ ext_key_usage: 'MindControl' }, /ext_key_usage/],
      [{ policy_identifiers: 'not-an-oid' }, /OID/],
      [{ not_after: 'tomorrow' }, /not_after/],
      [{ allow_subdomains: 'perhaps' }, /allow_subdomains/],
    ] as const) {
      const r = await role('bad', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json!.errors.join(' ')).toMatch(msg);
    }
    expect((await post('pki/roles/bad%20name', {})).status).toBe(400);
  });
});

describe('issue under a role', () => {
  it('denies the whole request when any name is outside policy', async () => {
    await role('strict', {});
    for (const body of [
      { common_name: 'www.evil.com' },
      { common_name: 'www.example.com', alt_names: 'ok.example.com,bad.evil.com' },
      { common_name: 'www.example.com', alt_names: 'ops@evil.com' },
      { common_name: 'www.example.com', uri_sans: 'https://example.com/x' },
      { common_name: 'www.example.com', other_sans: '1.2.3.4;UTF8:x' },
      { common_name: 'www.example.com', serial_number: 'custom' },
    ]) {
      const r = await post('pki/issue/strict', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    await role('no-ip', { allow_ip_sans: false });
    const ip = await post('pki/issue/no-ip', { common_name: 'www.example.com', ip_sans: '10.0.0.1' });
    expect(ip.json!.errors[0]).toMatch(/IP Subject Alternative Names are not allowed/);
    expect((await post('pki/certs', {})).status).toBe(405);
  });

  it('puts the allowed URI, other SANs, subject fields, usages and policies into the certificate', async () => {
    await role('rich', {
      allowed_uri_sans: 'spiffe://example.com/*',
      allowed_other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:*',
      allowed_serial_numbers: 'dev-*',
      organization: 'Latchkey',
      ou: 'Platform',
      country: 'NZ',
      locality: 'Wellington',
      province: 'WLG',
      street_address: '1 Main St',
      postal_code: '6011',
      key_usage: 'DigitalSignature',
      ext_key_usage: 'TimeStamping',
      ext_key_usage_oids: '1.3.6.1.5.5.7.3.17',
      server_flag: false,
      client_flag: true,
      code_signing_flag: true,
      email_protection_flag: true,
      policy_identifiers: '1.3.6.1.4.1.44947.1.1.1',
      basic_constraints_valid_for_non_ca: true,
      signature_bits: 384,
    });
    const r = await post('pki/issue/rich', {
      common_name: 'w.example.com',
      uri_sans: 'spiffe://example.com/web',
      other_sans: '1.3.6.1.4.1.311.20.2.3;UTF8:dev@example.com',
      serial_number: 'dev-1',
    });
    expect(r.status, r.text).toBe(200);
    const t = text(r.json!.data.certificate);
    const v = verifyChain(r.json!.data.certificate, root);
    expect(v.ok, v.out).toBe(true);
    expect(t).toMatch(
      /Subject: C ?= ?NZ, ST ?= ?WLG, L ?= ?Wellington, street ?= ?1 Main St, postalCode ?= ?6011, O ?= ?Latchkey, OU ?= ?Platform, CN ?= ?w\.example\.com, serialNumber ?= ?dev-1/,
    );
    expect(t).toMatch(/URI:spiffe:\/\/example\.com\/web/);
    expect(t).toMatch(/othername: (UPN|1\.3\.6\.1\.4\.1\.311\.20\.2\.3)[^\n]*dev@example\.com/i);
    expect(t).toMatch(/X509v3 Key Usage: critical\s+Digital Signature\n/);
    expect(t).toMatch(/Time Stamping/);
    expect(t).toMatch(
      /TLS Web Client Authentication, Code Signing, E-mail Protection, 1\.3\.6\.1\.5\.5\.7\.3\.17|Time Stamping, TLS Web Client Authentication, Code Signing, E-mail Protection/,
    );
    expect(t).not.toMatch(/TLS Web Server Authentication/);
    expect(t).toMatch(/Policy: 1\.3\.6\.1\.4\.1\.44947\.1\.1\.1/);
    expect(t).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    // The issuer is RSA, so signature_bits applies.
    expect(t).toMatch(/Signature Algorithm: sha384WithRSAEncryption/);
  });

  it('clamps ttl to max_ttl with a warning, refuses ttl with not_after, and a leaf outliving the CA', async () => {
    await role('ttl', { ttl: '1h', max_ttl: '2h', not_before_duration: '5m' });
    const clamped = await post('pki/issue/ttl', { common_name: 'a.example.com', ttl: '10h' });
    expect(clamped.status).toBe(200);
    expect(clamped.json!.warnings.join(' ')).toMatch(/maxTTL is being used/);
    expect(clamped.json!.data.expiration).toBe(clock / 1000 + 7200);
    const t = text(clamped.json!.data.certificate);
    expect(t).toContain(`Not Before: ${opensslDate(clock - 300_000)}`);
    const both = await post('pki/issue/ttl', { common_name: 'a.example.com', ttl: '1h', not_after: iso(clock + 3_600_000) });
    expect(both.status).toBe(400);
    const na = await post('pki/issue/ttl', { common_name: 'a.example.com', not_after: iso(clock + 5_400_000) });
    expect(na.json!.data.expiration).toBe((clock + 5_400_000) / 1000);
    await role('long', { max_ttl: '87600h' });
    const beyond = await post('pki/issue/long', { common_name: 'a.example.com', ttl: '20000h' });
    expect(beyond.status).toBe(400);
    expect(beyond.json!.errors[0]).toMatch(/beyond the expiration of the CA/);
    expect((await post('pki/issue/long', { common_name: 'a.example.com', not_after: '2026-13-01T00:00:00Z' })).status).toBe(400);
  });

  it('require_cn false issues without a common name', async () => {
    await role('nocn', { require_cn: false });
    const r = await post('pki/issue/nocn', { alt_names: 'x.example.com' });
    expect(r.status, r.text).toBe(200);
    expect(text(r.json!.data.certificate)).toMatch(/X509v3 Subject Alternative Name: critical/);
    expect((await post('pki/issue/strict', { alt_names: 'x.example.com' })).json!.errors[0]).toMatch(/common_name field is required/);
  });

  it('formats: der, pem_bundle, pkcs8', async () => {
    await role('fmt', {});
    const der = await post('pki/issue/fmt', { common_name: 'f.example.com', format: 'der' });
    expect(Buffer.from(der.json!.data.certificate, 'base64')[0]).toBe(0x30);
    expect(der.json!.data.private_key).not.toMatch(/BEGIN/);
    const bundle = await post('pki/issue/fmt', { common_name: 'f.example.com', format: 'pem_bundle' });
    expect(bundle.json!.data.certificate).toMatch(/BEGIN CERTIFICATE[\s\S]*BEGIN EC PRIVATE KEY[\s\S]*BEGIN CERTIFICATE/);
    const p8 = await post('pki/issue/fmt', { common_name: 'f.example.com', private_key_format: 'pkcs8' });
    expect(p8.json!.data.private_key).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(p8.json!.data.private_key_type).toBe('ec');
    expect((await post('pki/issue/fmt', { common_name: 'f.example.com', format: 'pfx' })).status).toBe(400);
  });

  it('unknown role, and key type any for issue, are refused', async () => {
    expect((await post('pki/issue/nope', { common_name: 'a.example.com' })).json!.errors[0]).toMatch(/unknown role/);
    await role('anykey', { key_type: 'any' });
    expect((await post('pki/issue/anykey', { common_name: 'a.example.com' })).json!.errors[0]).toMatch(/only signing/);
  });
});

describe('sign under a role', () => {
  it('enforces key type and minimum size (any: RSA >= 2048) and uses CSR names by default', async () => {
    await role('ec-only', {});
    const rsa = makeCsr('/CN=r.example.com', ['-newkey', 'rsa:2048']);
    expect((await post('pki/sign/ec-only', { csr: rsa })).json!.errors[0]).toMatch(/requires keys of type ec/);
    await role('any', { key_type: 'any' });
    const weak = makeCsr('/CN=r.example.com', ['-newkey', 'rsa:1024']);
    expect((await post('pki/sign/any', { csr: weak })).json!.errors[0]).toMatch(/2048/);
    const p384 = makeCsr('/CN=p.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']);
    const ok = await post('pki/sign/any', { csr: p384 });
    expect(ok.status, ok.text).toBe(200);
    const csrName = await post('pki/sign/ec-only', { csr: ecCsr('/CN=evil.com') });
    expect(csrName.status).toBe(400);
  });

  it('key_bits is a minimum, as the reference treats it: larger keys pass, smaller ones are refused by name', async () => {
    await role('ec-256', { key_type: 'ec', key_bits: 256 });
    await role('rsa-2048', { key_type: 'rsa', key_bits: 2048 });
    await role('rsa-3072', { key_type: 'rsa', key_bits: 3072 });
    const p384 = makeCsr('/CN=p.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384']);
    const rsa4096 = makeCsr('/CN=r.example.com', ['-newkey', 'rsa:4096']);
    const rsa2048 = makeCsr('/CN=r.example.com', ['-newkey', 'rsa:2048']);
    const p224 = makeCsr('/CN=p.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-224']);
    for (const [name, csr] of [
      ['ec-256', p384],
      ['rsa-2048', rsa4096],
      ['rsa-3072', rsa4096],
    ] as const) {
      const r = await post(`pki/sign/${name}`, { csr });
      expect(r.status, r.text).toBe(200);
    }
    expect((await post('pki/sign/rsa-3072', { csr: rsa2048 })).json!.errors[0]).toBe(
      "role requires a minimum of a 3072-bit key, but CSR's key is 2048 bits",
    );
    expect((await post('pki/sign/ec-256', { csr: p224 })).json!.errors[0]).toBe(
      "role requires a minimum of a 256-bit key, but CSR's key is 224 bits",
    );
  });

  it('use_csr_common_name / use_csr_sans false take the request values', async () => {
    await role('req-names', { use_csr_common_name: false, use_csr_sans: false });
    const csr = ecCsr('/CN=evil.com', ['-addext', 'subjectAltName=DNS:evil.com']);
    const r = await post('pki/sign/req-names', { csr, common_name: 'good.example.com' });
    expect(r.status, r.text).toBe(200);
    const t = text(r.json!.data.certificate);
    expect(t).toMatch(/CN ?= ?good\.example\.com/);
    expect(t).not.toMatch(/evil/);
  });

  it('refuses malformed and hostile CSRs with a 400', async () => {
    await role('csr', { key_type: 'any' });
    const cert = (await post('pki/issue/strict', { common_name: 'c.example.com' })).json!.data.certificate as string;
    const good = ecCsr();
    const tampered = good.replace(/(\n[A-Za-z0-9+/]{20})[A-Za-z0-9+/]/, (m, a: string) => a + (m.endsWith('A') ? 'B' : 'A'));
    for (const csr of [
      'garbage',
      '-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----',
      '-----BEGIN CERTIFICATE REQUEST-----\n!!!!\n-----END CERTIFICATE REQUEST-----',
      cert,
      tampered,
      `-----BEGIN CERTIFICATE REQUEST-----\n${Buffer.alloc(600_000, 0x30).toString('base64')}\n-----END CERTIFICATE REQUEST-----`,
      12345,
      ['a'],
    ]) {
      const r = await post('pki/sign/csr', { csr });
      expect(r.status, String(csr).slice(0, 40)).toBe(400);
      expect(r.json!.errors.length).toBeGreaterThan(0);
    }
    expect((await post('pki/sign/csr', {})).json!.errors[0]).toMatch(/csr/);
  });
});

describe('leases and storage', () => {
  it('generate_lease: revoking the lease revokes the certificate', async () => {
    await role('leased', { generate_lease: true, ttl: '1h' });
    const r = await post('pki/issue/leased', { common_name: 'l.example.com' });
    expect(r.json!.lease_id).toMatch(/^pki\/issue\/leased\//);
    expect(r.json!.lease_duration).toBe(3600);
    const serial = r.json!.data.serial_number;
    const rev = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: r.json!.lease_id } });
    expect(rev.status, rev.text).toBe(204);
    const c = await call(svc.app, 'GET', `/v1/pki/cert/${serial}`);
    expect(c.json!.data.revocation_time).toBeGreaterThan(0);
  });

  it('no_store: not readable, not listed, not revocable; no lease', async () => {
    await role('ephemeral', { no_store: true, generate_lease: true });
    const r = await post('pki/issue/ephemeral', { common_name: 'e.example.com' });
    expect(r.status).toBe(200);
    expect(r.json!.lease_id).toBe('');
    const serial = r.json!.data.serial_number;
    expect((await call(svc.app, 'GET', `/v1/pki/cert/${serial}`)).status).toBe(404);
    const list = await call(svc.app, 'LIST', '/v1/pki/certs', { token: svc.root });
    expect(list.json!.data.keys).not.toContain(serial);
    expect((await post('pki/revoke', { serial_number: serial })).status).toBe(400);
  });

  it('reads certificates by colon or hyphen serial, raw DER and PEM, without a token', async () => {
    const r = await post('pki/issue/strict', { common_name: 'read.example.com' });
    const serial = r.json!.data.serial_number as string;
    const env = await call(svc.app, 'GET', `/v1/pki/cert/${serial.replace(/:/g, '-').toUpperCase()}`);
    expect(env.json!.data.certificate.trim()).toBe(r.json!.data.certificate.trim());
    const raw = await call(svc.app, 'GET', `/v1/pki/cert/${serial}/raw`);
    expect(raw.headers.get('content-type')).toBe('application/pkix-cert');
    const pem = await call(svc.app, 'GET', `/v1/pki/cert/${serial}/raw/pem`);
    expect(pem.text.trim()).toBe(r.json!.data.certificate.trim());
    for (const bad of ['zz', '1:2:3:', 'a'.repeat(200), 'x-y'])
      expect((await call(svc.app, 'GET', `/v1/pki/cert/${bad}`)).status, bad).toBe(400);
    expect((await call(svc.app, 'LIST', '/v1/pki/certs')).status).toBe(403);
  });

  it('concurrent revokes of one serial all answer the same time', async () => {
    const r = await post('pki/issue/strict', { common_name: 'race.example.com' });
    const serial = r.json!.data.serial_number;
    const answers = await Promise.all(Array.from({ length: 6 }, () => post('pki/revoke', { serial_number: serial })));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((a) => a.json!.data.revocation_time)).size).toBe(1);
    const revoked = await call(svc.app, 'LIST', '/v1/pki/certs/revoked', { token: svc.root });
    expect(revoked.json!.data.keys).toContain(serial);
  });
});
