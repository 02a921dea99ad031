/**
 * node-vault (npm) drives each endpoint of the PKI issuers and keys API once, over real HTTP
 * (listen(), as the local server), with its generic calls: `read` (GET), `write` (POST), `list`
 * (LIST), `delete` (DELETE) and `update`, which node-vault 0.12 sends as PATCH with
 * `Content-Type: application/merge-patch+json`. The one request node-vault cannot make is a
 * binary read: it decodes every body as text, so the DER answers (issuer/<ref>/der,
 * issuer/<ref>/crl/der) are fetched with fetch(). What comes back is checked with openssl.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import nodeVault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { pkiEngine } from '../../../lib/pki/engine';
import { makeCsr, openssl, text, verifyChain, verifyCrl, withFiles } from '../../helpers/openssl';
import { createTestService, type TestService } from '../../helpers/service';
import { failure, type Json } from './harness';

let svc: TestService;
let server: Served;
const vault = (token?: string) => nodeVault({ endpoint: server.url, ...(token ? { token } : {}) });
const root = () => vault(svc.root);

const trim = (pem: string) => pem.trim();
const ecCsr = (cn: string) =>
  makeCsr(`/CN=${cn}`, ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], ['-addext', `subjectAltName=DNS:${cn}`]);
const serialOf = (pem: string) => /Serial Number:\s*\n?\s*([0-9a-f:]+)/i.exec(text(pem))![1]!.replace(/:/g, '').toUpperCase();
const crlSerials = (crl: string) => [...text(crl, 'crl').matchAll(/Serial Number: ([0-9A-F]+)/g)].map((m) => m[1]!.replace(/^0+/, ''));
const derToPem = (der: Buffer, kind: 'x509' | 'crl') =>
  withFiles({}, (p) => {
    writeFileSync(p('x.der'), der);
    return openssl([kind, '-inform', 'DER', '-in', p('x.der')]).out;
  });

/** What the flow made, named as the tests read it. */
const s: Record<string, string> = {};

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('node-vault: issuers', () => {
  it('write issuers/generate/root/internal: a named issuer and key, the default as the first one', async () => {
    const out: Json = await root().write('pki/issuers/generate/root/internal', {
      common_name: 'NV Root A',
      issuer_name: 'root-a',
      key_name: 'key-a',
      key_type: 'ec',
      ttl: '8760h',
    });
    expect(out.data).toMatchObject({ issuer_name: 'root-a', key_name: 'key-a', issuer_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    s.rootA = out.data.certificate;
    s.rootAId = out.data.issuer_id;
    s.keyAId = out.data.key_id;
    expect((await root().read('pki/config/issuers')).data).toEqual({ default: s.rootAId, default_follows_latest_issuer: false });
    await root().write('pki/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
  });

  it('list issuers: ids, key_info with the name and the default; without a token, 403', async () => {
    expect(await failure(vault().list('pki/issuers'))).toMatchObject({ status: 403 });
    const out: Json = await root().list('pki/issuers');
    expect(out.data).toEqual({ keys: [s.rootAId], key_info: { [s.rootAId!]: { issuer_name: 'root-a', is_default: true } } });
  });

  it('read issuer/<ref> (its settings) and, without a token, issuer/<ref>/json, /pem and /der (fetch: binary)', async () => {
    const read: Json = await root().read('pki/issuer/root-a');
    expect(read.data).toMatchObject({
      issuer_id: s.rootAId,
      issuer_name: 'root-a',
      key_id: s.keyAId,
      leaf_not_after_behavior: 'err',
      manual_chain: null,
      usage: 'read-only,issuing-certificates,crl-signing,ocsp-signing',
      revoked: false,
      ca_chain: [s.rootA],
    });
    expect(trim(read.data.certificate)).toBe(trim(s.rootA!));
    const json: Json = await vault().read(`pki/issuer/${s.rootAId}/json`);
    expect(json.data).toMatchObject({ certificate: read.data.certificate, ca_chain: [read.data.certificate], revoked: false });
    const pem = (await vault().read('pki/issuer/default/pem')) as string;
    expect(trim(pem)).toBe(trim(s.rootA!));
    const der = await fetch(`${server.url}/v1/pki/issuer/root-a/der`);
    expect(der.headers.get('content-type')).toBe('application/pkix-cert');
    expect(trim(derToPem(Buffer.from(await der.arrayBuffer()), 'x509'))).toBe(trim(s.rootA!));
  });

  it('write issuer/<ref> (POST) sets every setting, defaults for those not given; update (PATCH) changes only those given', async () => {
    const posted: Json = await root().write('pki/issuer/root-a', {
      issuer_name: 'root-a',
      leaf_not_after_behavior: 'truncate',
      issuing_certificates: ['http://127.0.0.1/v1/pki/issuer/root-a/der'],
    });
    expect(posted.data).toMatchObject({
      leaf_not_after_behavior: 'truncate',
      issuing_certificates: ['http://127.0.0.1/v1/pki/issuer/root-a/der'],
    });
    // node-vault's update() is a PATCH (application/merge-patch+json).
    const patched: Json = await root().update('pki/issuer/root-a', { leaf_not_after_behavior: 'permit' });
    expect(patched.data).toMatchObject({
      issuer_name: 'root-a',
      leaf_not_after_behavior: 'permit',
      issuing_certificates: ['http://127.0.0.1/v1/pki/issuer/root-a/der'],
    });
    const reset: Json = await root().write('pki/issuer/root-a', { issuer_name: 'root-a' });
    expect(reset.data).toMatchObject({ leaf_not_after_behavior: 'err', issuing_certificates: [] });
  });

  it('write issuers/generate/intermediate/internal, issuer/<ref>/sign-intermediate, issuers/import/cert: the key the mount holds is linked', async () => {
    const csr: Json = await root().write('pki/issuers/generate/intermediate/internal', {
      common_name: 'NV Int',
      key_name: 'key-int',
      key_type: 'ec',
    });
    expect(csr.data).toMatchObject({ key_name: 'key-int', csr: expect.stringMatching(/^-----BEGIN CERTIFICATE REQUEST-----/) });
    s.keyIntId = csr.data.key_id;
    const signed: Json = await root().write('pki/issuer/root-a/sign-intermediate', {
      csr: csr.data.csr,
      common_name: 'NV Int',
      ttl: '4000h',
    });
    expect(trim(signed.data.issuing_ca)).toBe(trim(s.rootA!));
    expect(verifyChain(signed.data.certificate, s.rootA!)).toMatchObject({ ok: true });
    s.int = signed.data.certificate;
    const imported: Json = await root().write('pki/issuers/import/cert', { pem_bundle: signed.data.certificate });
    expect(imported.data).toMatchObject({ imported_keys: null, existing_issuers: null });
    s.intId = imported.data.imported_issuers[0];
    expect(imported.data.mapping).toEqual({ [s.intId!]: s.keyIntId });
    await root().update(`pki/issuer/${s.intId}`, { issuer_name: 'int' });
    const read: Json = await root().read('pki/issuer/int');
    expect(read.data.ca_chain.map(trim)).toEqual([trim(s.int!), trim(s.rootA!)]);
  });

  it('write issuer/<ref>/issue/<role>, sign/<role>, sign-verbatim: each signed by the issuer the path names', async () => {
    const issued: Json = await root().write('pki/issuer/int/issue/web', { common_name: 'a.example.com' });
    expect(trim(issued.data.issuing_ca)).toBe(trim(s.int!));
    expect(issued.data.ca_chain.map(trim)).toEqual([trim(s.int!), trim(s.rootA!)]);
    expect(verifyChain(issued.data.certificate, s.rootA!, [s.int!])).toMatchObject({ ok: true });
    s.leaf = issued.data.certificate;
    const signed: Json = await root().write('pki/issuer/int/sign/web', { csr: ecCsr('b.example.com'), common_name: 'b.example.com' });
    expect(verifyChain(signed.data.certificate, s.rootA!, [s.int!])).toMatchObject({ ok: true });
    const verbatim: Json = await root().write('pki/issuer/int/sign-verbatim', { csr: ecCsr('c.example.com'), ttl: '1h' });
    expect(verifyChain(verbatim.data.certificate, s.rootA!, [s.int!])).toMatchObject({ ok: true });
    // The same requests through the default issuer (root-a) are not signed by int.
    const byDefault: Json = await root().write('pki/issue/web', { common_name: 'd.example.com' });
    expect(verifyChain(byDefault.data.certificate, s.rootA!)).toMatchObject({ ok: true });
  });

  it('write issuers/import/bundle (a CA and its key) and issuer/<ref>/sign-self-issued (sudo) of that CA', async () => {
    const outside: Json = await root().write('pki_int/root/generate/exported', { common_name: 'NV Outside', key_type: 'ec' });
    s.outside = outside.data.certificate;
    const bundle = `${outside.data.private_key}\n${outside.data.certificate}\n`;
    const imported: Json = await root().write('pki/issuers/import/bundle', { pem_bundle: bundle });
    expect(imported.data.imported_issuers).toHaveLength(1);
    expect(imported.data.imported_keys).toHaveLength(1);
    s.outsideId = imported.data.imported_issuers[0];
    s.outsideKeyId = imported.data.imported_keys[0];
    expect(imported.data.mapping).toEqual({ [s.outsideId!]: s.outsideKeyId });
    const again: Json = await root().write('pki/issuers/import/bundle', { pem_bundle: bundle });
    expect(again.data).toMatchObject({ imported_issuers: null, existing_issuers: [s.outsideId], existing_keys: [s.outsideKeyId] });
    const resigned: Json = await root().write('pki/issuer/root-a/sign-self-issued', { certificate: s.outside });
    expect(text(resigned.data.certificate)).toMatch(/Issuer: CN\s?=\s?NV Root A/);
    expect(text(resigned.data.certificate)).toMatch(/Subject: CN\s?=\s?NV Outside/);
    expect(verifyChain(resigned.data.certificate, s.rootA!)).toMatchObject({ ok: true });
  });

  it('write config/issuers: the default by name; read it back', async () => {
    expect((await root().write('pki/config/issuers', { default: 'int' })).data).toEqual({
      default: s.intId,
      default_follows_latest_issuer: false,
    });
    expect(trim((await vault().read('pki/issuer/default/pem')) as string)).toBe(trim(s.int!));
    await root().write('pki/config/issuers', { default: 'root-a' });
    expect((await root().read('pki/config/issuers')).data.default).toBe(s.rootAId);
  });

  it('write root/rotate/internal (issuer "next"), intermediate/cross-sign (key_ref), intermediate/set-signed, root/replace', async () => {
    const next: Json = await root().write('pki/root/rotate/internal', { common_name: 'NV Root B', key_type: 'ec' });
    expect(next.data.issuer_name).toBe('next');
    s.rootB = next.data.certificate;
    s.nextId = next.data.issuer_id;
    expect((await root().read('pki/config/issuers')).data.default).toBe(s.rootAId);
    const csr: Json = await root().write('pki/intermediate/cross-sign', { common_name: 'NV Int', key_ref: 'key-int' });
    expect(csr.data.key_id).toBe(s.keyIntId);
    const cross: Json = await root().write('pki/issuer/next/sign-intermediate', { csr: csr.data.csr, use_csr_values: true });
    const set: Json = await root().write('pki/intermediate/set-signed', { certificate: cross.data.certificate });
    s.crossId = set.data.imported_issuers[0];
    expect(set.data.mapping).toEqual({ [s.crossId!]: s.keyIntId });
    // int's leaf, same key and subject as the cross-signed copy: trusted through root B as well.
    expect(verifyChain(s.leaf!, s.rootB!, [cross.data.certificate])).toMatchObject({ ok: true });
    const replaced: Json = await root().write('pki/root/replace', {});
    expect(replaced.data).toEqual({ default: s.nextId, default_follows_latest_issuer: false });
    expect(trim((await vault().read('pki/ca/pem')) as string)).toBe(trim(s.rootB!));
  });

  it("read issuer/<ref>/crl, /crl/pem without a token and /crl/der (fetch): the issuer's own CRL, signed by it", async () => {
    const json: Json = await vault().read('pki/issuer/root-a/crl');
    expect(verifyCrl(json.data.crl, s.rootA!)).toMatchObject({ ok: true });
    const pem = (await vault().read('pki/issuer/root-a/crl/pem')) as string;
    expect(verifyCrl(pem, s.rootA!)).toMatchObject({ ok: true });
    const der = await fetch(`${server.url}/v1/pki/issuer/next/crl/der`);
    expect(der.headers.get('content-type')).toBe('application/pkix-crl');
    expect(verifyCrl(derToPem(Buffer.from(await der.arrayBuffer()), 'crl'), s.rootB!)).toMatchObject({ ok: true });
  });

  it('write issuer/<ref>/revoke: it issues nothing more and its parent lists it on its CRL', async () => {
    const revoked: Json = await root().write('pki/issuer/int/revoke', {});
    expect(revoked.data).toMatchObject({ issuer_name: 'int', revoked: true, usage: 'read-only,crl-signing,ocsp-signing' });
    expect(revoked.data.revocation_time).toBeGreaterThan(0);
    expect(crlSerials((await vault().read('pki/issuer/root-a/crl/pem')) as string)).toContain(serialOf(s.int!).replace(/^0+/, ''));
    expect(await failure(root().write('pki/issuer/int/issue/web', { common_name: 'e.example.com' }))).toEqual({
      status: 400,
      message: expect.stringMatching(/^issuer int may not be used for issuing-certificates/),
    });
  });

  it('delete issuer/<ref>: gone from the list and the reads (404); its key stays', async () => {
    expect(await root().delete(`pki/issuer/${s.outsideId}`)).toBe('');
    expect((await root().list('pki/issuers')).data.keys).not.toContain(s.outsideId);
    expect(await failure(root().read(`pki/issuer/${s.outsideId}`))).toEqual({
      status: 404,
      message: `unable to find issuer for reference: ${s.outsideId}`,
    });
    expect((await root().read(`pki/key/${s.outsideKeyId}`)).data.key_id).toBe(s.outsideKeyId);
  });
});

describe('node-vault: keys', () => {
  it('list keys and read key/<ref>: ids, names, types, the default', async () => {
    const list: Json = await root().list('pki/keys');
    expect(list.data.keys).toEqual(expect.arrayContaining([s.keyAId, s.keyIntId, s.outsideKeyId]));
    expect(list.data.key_info[s.keyAId!]).toEqual({ key_name: 'key-a', is_default: true });
    expect((await root().read('pki/key/key-a')).data).toEqual({ key_id: s.keyAId, key_name: 'key-a', key_type: 'ec' });
    expect((await root().read('pki/config/keys')).data).toEqual({ default: s.keyAId });
  });

  it('write keys/generate/internal and /exported (the private key answered once), keys/import', async () => {
    const internal: Json = await root().write('pki/keys/generate/internal', { key_name: 'spare', key_type: 'ec', key_bits: 384 });
    expect(internal.data).toEqual({ key_id: expect.any(String), key_name: 'spare', key_type: 'ec' });
    const exported: Json = await root().write('pki/keys/generate/exported', { key_name: 'spare-x', key_type: 'rsa', key_bits: 2048 });
    expect(exported.data).toMatchObject({ key_name: 'spare-x', key_type: 'rsa', private_key_type: 'rsa' });
    expect(exported.data.private_key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const imported: Json = await root().write('pki/keys/import', { pem_bundle: pem, key_name: 'imported' });
    expect(imported.data).toMatchObject({ key_name: 'imported', key_type: 'ed25519' });
    s.importedKeyId = imported.data.key_id;
  });

  it('write key/<ref> renames; write config/keys sets the default; delete key/<ref> of an unused key', async () => {
    expect((await root().write('pki/key/spare', { key_name: 'spare-2' })).data).toMatchObject({ key_name: 'spare-2' });
    expect(await failure(root().read('pki/key/spare'))).toMatchObject({ status: 404 });
    expect((await root().write('pki/config/keys', { default: 'imported' })).data).toEqual({ default: s.importedKeyId });
    expect(await root().delete('pki/key/spare-2')).toBe('');
    expect(await failure(root().read('pki/key/spare-2'))).toEqual({
      status: 404,
      message: 'unable to find PKI key for reference: spare-2',
    });
    expect(await root().delete(`pki/key/${s.outsideKeyId}`)).toBe('');
    expect((await root().list('pki/keys')).data.keys).not.toContain(s.outsideKeyId);
  });

  it('a key an issuer uses is refused for deletion, naming the issuer', async () => {
    expect(await failure(root().delete('pki/key/key-a'))).toEqual({
      status: 400,
      message: `key key-a is used by issuer(s) root-a: delete them first`,
    });
  });
});
