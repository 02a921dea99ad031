/** Managed keys: CAs whose key lives in KMS (the local fake, driven through the real SDK wire protocol). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { startKmsFake, type KmsFake } from '../../fakes/kms-server';
import { goX509, type GoX509 } from '../../helpers/go-x509';
import { call, createTestService, type TestService } from '../../helpers/service';
import { text, verifyChain, verifyCrl } from '../../helpers/openssl';

let svc: TestService;
let kms: KmsFake;
let go: GoX509;
const saved = { ...process.env };
const post = (path: string, body: unknown) => call(svc.app, 'POST', `/v1/${path}`, { token: svc.root, body });
let rootKey = '';
let intKey = '';
let nextKey = '';

beforeAll(async () => {
  go = goX509();
  kms = await startKmsFake();
  rootKey = (await kms.createKey({ keySpec: 'RSA_2048', keyUsage: 'SIGN_VERIFY' })).keyId;
  intKey = (await kms.createKey({ keySpec: 'ECC_NIST_P256', keyUsage: 'SIGN_VERIFY' })).keyId;
  nextKey = (await kms.createKey({ keySpec: 'ECC_NIST_P384', keyUsage: 'SIGN_VERIFY' })).keyId;
  const encryptOnly = (await kms.createKey({ keySpec: 'RSA_2048', keyUsage: 'ENCRYPT_DECRYPT' })).keyId;
  process.env.MANAGED_KEYS = JSON.stringify({
    'root-key': { key_id: rootKey },
    'int-key': { key_id: intKey },
    'next-key': { key_id: nextKey },
    'not-signing': { key_id: encryptOnly },
    missing: { key_id: '00000000-0000-0000-0000-000000000000' },
  });
  process.env.AWS_ACCESS_KEY_ID = kms.credentials.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = kms.credentials.secretAccessKey;
  svc = await createTestService({ engines: [pkiEngine] });
  svc.deps.env.kmsEndpoint = kms.endpoint;
});

afterAll(async () => {
  process.env = saved;
  await kms.close();
  await go.close();
});

const signCalls = (keyId: string) => kms.calls.filter((c) => c.operation === 'Sign' && c.keyId === keyId && c.status === 200).length;

describe('managed (KMS) CA keys', () => {
  let root = '';
  let inter = '';

  it('root/generate/kms signs the root through KMS Sign and never returns a private key', async () => {
    const before = signCalls(rootKey);
    const r = await post('pki/root/generate/kms', {
      common_name: 'KMS Root',
      managed_key_name: 'root-key',
      ttl: '8760h',
      format: 'pem_bundle',
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.private_key).toBeUndefined();
    expect(r.json!.data.certificate).not.toMatch(/PRIVATE KEY/);
    root = r.json!.data.certificate;
    expect(verifyChain(root, root).ok).toBe(true);
    expect(await go.verify(root, [root])).toMatchObject({ ok: true });
    expect(text(root)).toMatch(/sha256WithRSAEncryption/);
    expect(signCalls(rootKey)).toBe(before + 1);
  });

  it('an intermediate on a KMS EC key (by managed_key_id) issues leaves signed by KMS', async () => {
    const g = await post('pki_int/intermediate/generate/kms', { common_name: 'KMS Int', managed_key_id: intKey });
    expect(g.status, g.text).toBe(200);
    expect(g.json!.data.private_key).toBeUndefined();
    const s = await post('pki/root/sign-intermediate', { csr: g.json!.data.csr, common_name: 'KMS Int', ttl: '100h' });
    expect(s.status, s.text).toBe(200);
    inter = s.json!.data.certificate;
    const set = await post('pki_int/intermediate/set-signed', { certificate: inter });
    expect(set.status, set.text).toBe(200);
    // The new issuer is linked to the mount's record of the KMS key.
    expect(set.json!.data.mapping).toEqual({ [set.json!.data.imported_issuers[0]]: g.json!.data.key_id });
    await post('pki_int/roles/web', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
    const before = signCalls(intKey);
    const leaf = await post('pki_int/issue/web', { common_name: 'k.example.com' });
    expect(leaf.status, leaf.text).toBe(200);
    expect(signCalls(intKey)).toBe(before + 1);
    expect(verifyChain(leaf.json!.data.certificate, root, [inter]).ok).toBe(true);
    expect(await go.verify(leaf.json!.data.certificate, [root], [inter], 'k.example.com')).toMatchObject({ ok: true, chain_length: 3 });
    expect(text(leaf.json!.data.certificate)).toMatch(/ecdsa-with-SHA256/);
    // Revocation: the CRL is signed by KMS too, and verifies.
    const crlCalls = signCalls(intKey);
    expect((await post('pki_int/revoke', { serial_number: leaf.json!.data.serial_number })).status).toBe(200);
    expect(signCalls(intKey)).toBe(crlCalls + 1);
    const crl = await call(svc.app, 'GET', '/v1/pki_int/crl/pem');
    expect(verifyCrl(crl.text, inter).ok).toBe(true);
    expect(await go.crl(crl.text, inter)).toMatchObject({ ok: true });
  });

  it('refuses misconfigured managed keys and key parameters', async () => {
    await call(svc.app, 'DELETE', '/v1/pki/root', { token: svc.root });
    for (const [body, msg] of [
      [{ managed_key_name: 'not-signing' }, /not an asymmetric signing key/],
      [{ managed_key_name: 'missing' }, /not usable/],
      [{ managed_key_name: 'root-key', key_bits: 2048 }, /key_type and key_bits/],
      [{}, /managed_key_name or managed_key_id/],
    ] as const) {
      const r = await post('pki/root/generate/kms', { common_name: 'x', ...body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json!.errors[0]).toMatch(msg);
    }
  });

  it('a KMS Sign failure is a 502 naming the KMS error, with nothing stored', async () => {
    const before = await call(svc.app, 'LIST', '/v1/pki_int/certs', { token: svc.root });
    kms.failNext('Sign', 'KMSInternalException', { count: 5 });
    const r = await post('pki_int/issue/web', { common_name: 'f.example.com' });
    kms.clearFaults();
    expect(r.status).toBe(502);
    expect(r.json!.errors[0]).toMatch(/KMS Sign failed: KMSInternalException/);
    const after = await call(svc.app, 'LIST', '/v1/pki_int/certs', { token: svc.root });
    expect(after.json!.data.keys).toEqual(before.json!.data.keys);
  });

  it('a CA moves into KMS by rotation: keys/generate/kms is a key like any other, a root made on it with key_ref, root/replace; leaves then signed by KMS', async () => {
    const local = await post('pki/issuers/generate/root/internal', { common_name: 'Local Root', issuer_name: 'local', key_type: 'ec' });
    expect(local.status, local.text).toBe(200);
    expect((await post('pki/root/replace', { default: 'local' })).status).toBe(200);
    await post('pki/roles/svc', { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' });
    const before = await post('pki/issue/svc', { common_name: 'before.example.com' });
    expect(verifyChain(before.json!.data.certificate, local.json!.data.certificate).ok).toBe(true);

    const key = await post('pki/keys/generate/kms', { managed_key_name: 'next-key', key_name: 'in-kms' });
    expect(key.status, key.text).toBe(200);
    expect(key.json!.data).toMatchObject({ key_name: 'in-kms', key_type: 'ec', managed_key_name: 'next-key', managed_key_id: nextKey });
    expect(key.json!.data.private_key).toBeUndefined();
    const read = await call(svc.app, 'GET', '/v1/pki/key/in-kms', { token: svc.root });
    expect(read.json!.data).toMatchObject({ key_id: key.json!.data.key_id, managed_key_name: 'next-key' });
    const listed = await call(svc.app, 'LIST', '/v1/pki/keys', { token: svc.root });
    expect(listed.json!.data.keys).toContain(key.json!.data.key_id);

    const signs = signCalls(nextKey);
    const next = await post('pki/issuers/generate/root/existing', {
      common_name: 'KMS Root 2',
      issuer_name: 'kms-next',
      key_ref: 'in-kms',
    });
    expect(next.status, next.text).toBe(200);
    expect(next.json!.data.key_id).toBe(key.json!.data.key_id);
    expect(signCalls(nextKey)).toBe(signs + 1);
    expect(text(next.json!.data.certificate)).toMatch(/ecdsa-with-SHA384/);
    expect((await post('pki/root/replace', { default: 'kms-next' })).status).toBe(200);

    const leaf = await post('pki/issue/svc', { common_name: 'after.example.com' });
    expect(leaf.status, leaf.text).toBe(200);
    expect(signCalls(nextKey)).toBe(signs + 2);
    expect(await go.verify(leaf.json!.data.certificate, [next.json!.data.certificate], [], 'after.example.com')).toMatchObject({
      ok: true,
    });
    // The old issuer still signs its own CRL with its local key; the old leaf stays valid under it.
    expect((await post('pki/revoke', { serial_number: before.json!.data.serial_number })).status).toBe(200);
    const oldCrl = await call(svc.app, 'GET', '/v1/pki/issuer/local/crl/pem');
    expect(verifyCrl(oldCrl.text, local.json!.data.certificate).ok).toBe(true);
    expect(signCalls(nextKey)).toBe(signs + 2);
    // A key an issuer uses is not deleted.
    expect((await call(svc.app, 'DELETE', '/v1/pki/key/in-kms', { token: svc.root })).status).toBe(400);
  });
});
