/** An Ed25519 CA end to end: what it signs (leaf, intermediate, CRL) verifies with openssl and Go. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, type TestService } from '../../helpers/service';
import { text, verifyChain, verifyCrl } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
let root = '';
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
  const r = await post('pki/root/generate/internal', { common_name: 'Ed Root', key_type: 'ed25519', ttl: '8760h' });
  expect(r.status, r.text).toBe(200);
  root = r.json!.data.certificate;
});

afterAll(async () => {
  await go.close();
});

describe('an Ed25519 CA', () => {
  it('signs an Ed25519 intermediate and leaves of every key type; its CRLs verify and revoke', async () => {
    expect(text(root)).toMatch(/Signature Algorithm: ED25519/);
    const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Ed Int', key_type: 'ed25519' });
    const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'Ed Int', ttl: '1000h' });
    const inter = s.json!.data.certificate;
    expect(verifyChain(inter, root).ok).toBe(true);
    expect(await go.verify(inter, [root])).toMatchObject({ ok: true });
    expect((await post('pki_int/intermediate/set-signed', { certificate: inter })).status).toBe(200);
    for (const keyType of ['rsa', 'ec', 'ed25519']) {
      await post(`pki_int/roles/${keyType}`, { allowed_domains: 'example.com', allow_subdomains: true, key_type: keyType, ttl: '1h' });
      const leaf = await post(`pki_int/issue/${keyType}`, { common_name: `${keyType}.example.com` });
      expect(leaf.status, leaf.text).toBe(200);
      const v = verifyChain(leaf.json!.data.certificate, root, [inter]);
      expect(v.ok, v.out).toBe(true);
      expect(await go.verify(leaf.json!.data.certificate, [root], [inter], `${keyType}.example.com`)).toMatchObject({ ok: true });
    }
    const victim = await post('pki_int/issue/ec', { common_name: 'victim.example.com' });
    const rev = await post('pki_int/revoke', { serial_number: victim.json!.data.serial_number });
    expect(rev.json!.data.revocation_time).toBeGreaterThan(0);
    const crl = (await call(svc.app, 'GET', '/v1/pki_int/crl/pem')).text;
    const rootCrl = (await call(svc.app, 'GET', '/v1/pki/crl/pem')).text;
    expect(verifyCrl(crl, inter).ok).toBe(true);
    expect(verifyCrl(rootCrl, root).ok).toBe(true);
    expect(await go.crl(crl, inter)).toMatchObject({ ok: true });
    expect(await go.crl(rootCrl, root)).toMatchObject({ ok: true });
    const checked = verifyChain(victim.json!.data.certificate, root, [inter], [crl, rootCrl]);
    expect(checked.ok).toBe(false);
    expect(checked.out).toMatch(/certificate revoked/);
  });
});
