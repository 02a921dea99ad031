/**
 * A CRL is issued and signed by the CA that serves it: `crl` and `crl/pem` are the default
 * issuer's, with only the certificates it issued, after DELETE root + a new root, after
 * intermediate/set-signed, and when a replacement intermediate or a config/ca import becomes the
 * default (default_follows_latest_issuer); an issuer no longer the default still signs its own
 * under issuer/<id>/crl. Checked by openssl and Go's crypto/x509.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { toPem } from '../../../lib/pki/pem';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, type TestService } from '../../helpers/service';
import { selfSignedCert, verifyCrl } from '../../helpers/openssl';

let svc: TestService;
let go: GoX509;
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const hexSerial = (s: string) => s.replace(/:/g, '').replace(/^0+/, '');

/** Issues a leaf under `mount` and revokes it; returns its serial (Go's hex form). */
async function revokedLeaf(mount: string): Promise<string> {
  expect((await post(`${mount}/roles/any`, { allow_any_name: true, key_type: 'ec' })).status).toBe(200);
  const leaf = await post(`${mount}/issue/any`, { common_name: 'old.example.com', ttl: '1h' });
  expect(leaf.status, leaf.text).toBe(200);
  expect((await post(`${mount}/revoke`, { serial_number: leaf.json!.data.serial_number })).status).toBe(200);
  return hexSerial(leaf.json!.data.serial_number);
}

/** Both CRL forms (the default issuer's, or `issuer/<id>`'s) verify with `caPem` (openssl and Go) and list exactly `serials`. */
async function expectCrlOf(mount: string, caPem: string, serials: string[], issuerId?: string): Promise<void> {
  const [pemPath, derPath] = issuerId ? [`issuer/${issuerId}/crl/pem`, `issuer/${issuerId}/crl/der`] : ['crl/pem', 'crl'];
  const pem = await call(svc.app, 'GET', `/v1/${mount}/${pemPath}`);
  const der = await svc.app.request(`http://localhost/v1/${mount}/${derPath}`);
  const fromDer = toPem('X509 CRL', Buffer.from(await der.arrayBuffer()));
  expect(fromDer.trim()).toBe(pem.text.trim());
  expect(verifyCrl(pem.text, caPem)).toMatchObject({ ok: true });
  const g = await go.crl(pem.text, caPem);
  expect(g, g.error).toMatchObject({ ok: true });
  expect(g.revoked ?? []).toEqual(serials);
}

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  go = goX509();
});

afterAll(async () => {
  await go?.close();
});

describe('the CRL follows its CA', () => {
  it("after DELETE root and a new root/generate (the same name), the CRL is the new root's and lists none of the old one's", async () => {
    const first = await post('pki/root/generate/internal', { common_name: 'Example Root CA', key_type: 'ec' });
    const old = await revokedLeaf('pki');
    await expectCrlOf('pki', first.json!.data.certificate, [old]);
    expect((await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root })).status).toBe(204);
    const second = await post('pki/root/generate/internal', { common_name: 'Example Root CA', key_type: 'rsa' });
    expect(second.status, second.text).toBe(200);
    await expectCrlOf('pki', second.json!.data.certificate, []);
    const mine = await revokedLeaf('pki');
    await expectCrlOf('pki', second.json!.data.certificate, [mine]);
  });

  it("after intermediate/set-signed, the CRL is the intermediate's; a replacement made the default serves its own, the first keeps its own", async () => {
    const root = (await call(svc.app, 'GET', '/v1/pki/ca/pem')).text;
    const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Int One', key_type: 'ec' });
    const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'Int One', ttl: '100h' });
    const set = await post('pki_int/intermediate/set-signed', { certificate: `${s.json!.data.certificate}\n${root}` });
    expect(set.status, set.text).toBe(200);
    const first = set.json!.data.imported_issuers[0] as string;
    const old = await revokedLeaf('pki_int');
    await expectCrlOf('pki_int', s.json!.data.certificate, [old]);
    // The replacement becomes the default as it is imported (the mount already has one).
    const follow = await post('pki_int/config/issuers', { default: first, default_follows_latest_issuer: true });
    expect(follow.status, follow.text).toBe(200);
    const g2 = await post('pki_int/intermediate/generate/internal', { common_name: 'Int One', key_type: 'ec' });
    const s2 = await post('pki/root/sign-intermediate', { csr: g2.json!.data.csr, common_name: 'Int One', ttl: '100h' });
    const set2 = await post('pki_int/intermediate/set-signed', { certificate: `${s2.json!.data.certificate}\n${root}` });
    expect(set2.status, set2.text).toBe(200);
    await expectCrlOf('pki_int', s2.json!.data.certificate, []);
    await expectCrlOf('pki_int', s.json!.data.certificate, [old], first);
  });

  it("after a config/ca import (the default follows the latest issuer), the CRL is the imported CA's", async () => {
    const made = selfSignedCert('Imported CA');
    const bundle = made.cert + made.key;
    const imported = await post('pki_int/config/ca', { pem_bundle: bundle });
    expect(imported.status, imported.text).toBe(200);
    const caPem = (await call(svc.app, 'GET', '/v1/pki_int/ca/pem')).text;
    expect(caPem.trim()).toBe(bundle.slice(0, bundle.indexOf('-----BEGIN PRIVATE KEY')).trim());
    await expectCrlOf('pki_int', caPem, []);
    const mine = await revokedLeaf('pki_int');
    await expectCrlOf('pki_int', caPem, [mine]);
  });
});
