/**
 * Imports and the default issuer, as OpenBao has them (issue 25): a key imported after its
 * certificate links the keyless issuer; default_follows_latest_issuer takes the one imported issuer
 * with a key, never the keyless root of a set-signed bundle (and, with several, leaves the default
 * with a warning); concurrent roots on an empty mount leave a default that every read agrees on;
 * an empty issuers or keys list is a 404, as every list.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { call, createTestService, type TestService } from '../../helpers/service';
import { selfSignedCert } from '../../helpers/openssl';

let svc: TestService;
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
const caBundle = (cn: string) => selfSignedCert(cn);

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
});

describe('imports and the default issuer', () => {
  it('a key imported after its certificate links the issuer (OpenBao: importKey links keyless issuers with that public key)', async () => {
    const { cert, key } = caBundle('Cert First');
    const a = await post('pki/config/ca', { pem_bundle: cert });
    const id = a.json!.data.imported_issuers[0];
    const b = await post('pki/config/ca', { pem_bundle: cert + key });
    const keyId = b.json!.data.imported_keys[0];
    expect(b.json!.data.mapping).toEqual({ [id]: keyId });
    await post('pki/roles/any', { allow_any_name: true, key_type: 'ec' });
    const issued = await post('pki/issue/any', { common_name: 'x.example.com', ttl: '1h' });
    expect(issued.status, issued.text).toBe(200);
  });

  it('with default_follows_latest_issuer, set-signed of intermediate + root makes the intermediate (the one with a key) the default', async () => {
    const root = await post('pki/root/generate/internal', { common_name: 'Follow Root', key_type: 'ec' });
    await post('pki_int/root/generate/internal', { common_name: 'Old', key_type: 'ec' });
    await post('pki_int/config/issuers', { default: 'default', default_follows_latest_issuer: true });
    const g = await post('pki_int/intermediate/generate/internal', { common_name: 'Int', key_type: 'ec' });
    const s = await post('pki/issuer/' + root.json!.data.issuer_id + '/sign-intermediate', {
      csr: g.json!.data.csr,
      common_name: 'Int',
      ttl: '100h',
    });
    const set = await post('pki_int/intermediate/set-signed', {
      certificate: `${s.json!.data.certificate}\n${root.json!.data.certificate}`,
    });
    const [intId] = set.json!.data.imported_issuers;
    const config = await call(svc.app, 'GET', '/v1/pki_int/config/issuers', { token: svc.root });
    expect(config.json!.data.default).toBe(intId);
    await post('pki_int/roles/any', { allow_any_name: true, key_type: 'ec' });
    expect((await post('pki_int/issue/any', { common_name: 'y.example.com', ttl: '1h' })).status).toBe(200);
  });

  it('with default_follows_latest_issuer, a bundle of two issuers with keys leaves the default, with a warning', async () => {
    const before = (await call(svc.app, 'GET', '/v1/pki_int/config/issuers', { token: svc.root })).json!.data.default;
    const one = caBundle('Two A');
    const two = caBundle('Two B');
    await post('pki_int/keys/import', { pem_bundle: one.key });
    await post('pki_int/keys/import', { pem_bundle: two.key });
    const r = await post('pki_int/issuers/import/cert', { pem_bundle: one.cert + two.cert });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.imported_issuers).toHaveLength(2);
    expect(r.json!.warnings.join(' ')).toMatch(/Default issuer left unchanged/);
    expect((await call(svc.app, 'GET', '/v1/pki_int/config/issuers', { token: svc.root })).json!.data.default).toBe(before);
  });

  it('concurrent roots on an empty mount: one default, and every read names the same one', async () => {
    await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root });
    const made = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((n) => post('pki/root/generate/internal', { common_name: `Race ${n}`, key_type: 'ec' })),
    );
    const ids = made.map((m) => m.json!.data.issuer_id);
    const config = (await call(svc.app, 'GET', '/v1/pki/config/issuers', { token: svc.root })).json!.data.default;
    expect(ids).toContain(config);
    const list = await call(svc.app, 'LIST', '/v1/pki/issuers', { token: svc.root });
    const defaults = Object.entries(list.json!.data.key_info).filter(([, v]) => (v as { is_default: boolean }).is_default);
    expect(defaults.map(([k]) => k)).toEqual([config]);
  });

  it('an empty LIST issuers / LIST keys is a 404, as every list of the reference (and pki/certs here)', async () => {
    await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root });
    expect((await call(svc.app, 'LIST', '/v1/pki/issuers', { token: svc.root })).status).toBe(404);
    expect((await call(svc.app, 'LIST', '/v1/pki/keys', { token: svc.root })).status).toBe(404);
  });
});
