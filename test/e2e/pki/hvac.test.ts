/** Compatibility: an existing secrets-server client library (Debian python3-hvac) drives the engine unmodified. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { pkiEngine } from '../../../lib/pki/engine';
import { createTestService, type TestService } from '../../helpers/service';
import { makeCsr, text, verifyChain, verifyCrl } from '../../helpers/openssl';

let svc: TestService;
let server: Served;

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  // The local server's front accepts the LIST method hvac sends.
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('python3-hvac', () => {
  it('runs the whole PKI flow with hvac PKI methods, and what it gets back verifies with openssl', async () => {
    const csr = makeCsr(
      '/CN=svc.example.com',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
      ['-addext', 'subjectAltName=DNS:svc.example.com'],
    );
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'hvac_flow.py')], {
      env: { ...process.env, LATCHKEY_ADDR: server.url, LATCHKEY_TOKEN: svc.root, CSR: csr, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const { root, intermediate } = out;
    expect(verifyChain(intermediate, root).ok).toBe(true);
    for (const leaf of [out.leaf.certificate, out.signed, out.verbatim]) expect(verifyChain(leaf, root, [intermediate]).ok).toBe(true);
    expect(text(out.leaf.certificate)).toMatch(/CA Issuers - URI:http:\/\/127\.0\.0\.1\/v1\/pki_int\/ca/);
    expect(text(out.leaf.certificate)).toMatch(/URI:http:\/\/127\.0\.0\.1\/v1\/pki_int\/crl/);
    expect(out.urls.issuing_certificates).toEqual(['http://127.0.0.1/v1/pki_int/ca']);
    expect(out.role).toMatchObject({ allowed_domains: ['example.com'], key_type: 'ec', ttl: '1h0m0s' });
    expect(out.roles).toEqual(['web']);
    expect(out.leaf.private_key_type).toBe('ec');
    expect(out.read.trim()).toBe(out.leaf.certificate.trim());
    expect(out.listed).toBe(true);
    expect(out.revoked.revocation_time).toBeGreaterThan(0);
    expect(verifyCrl(out.crl, intermediate).ok).toBe(true);
    expect(verifyChain(out.leaf.certificate, root, [intermediate], [out.crl, out.crl]).ok).toBe(false);
    expect(out.ca_pem.trim()).toBe(intermediate.trim());
    expect(out.ca_chain.trim()).toBe(intermediate.trim());
    expect(out.crl_config).toMatchObject({ expiry: '48h', disable: false });
    expect(out.tidy).toBe(202);
    expect(out.deleted_role_error).toMatch(/unknown role/);
  });
});
