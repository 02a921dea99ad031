/**
 * Over-deep and over-wide input on every surface of a local service that audits to its file
 * device (as a user runs it): a body nested 10,000 levels as a PKI write, as token `meta`, as a
 * cloud-B inline policy given as a JSON string, as a catalog registration, and as an ACME JWS
 * payload or protected header, and a form of more than 100,000 values. Each answers a 4xx naming
 * the limit (it answered 500, "the audit log could not record the request", or worse), nothing
 * is stored, and the audit log records the refusal.
 */
import { FlattenedSign, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedService, type Answer, type AuditedService } from '../audit/helpers';

let s: AuditedService;
const LEVELS = 10_000;
const deep = `${'{"a":'.repeat(LEVELS)}1${'}'.repeat(LEVELS)}`;
const json = { 'content-type': 'application/json' };
const DEPTH = 'nests deeper than 64 levels';

beforeAll(async () => {
  s = await auditedService();
  const ok = async (method: string, path: string, body: unknown) => {
    const r = await s.call(method, `/v1/${path}`, { token: s.root, body });
    expect(r.status, r.text).toBeLessThan(300);
  };
  await ok('POST', 'pki/root/generate/internal', { common_name: 'Limits root', key_type: 'ec' });
  await ok('POST', 'pki/config/cluster', { path: `${s.url}/v1/pki` });
  await ok('POST', 'pki/config/acme', { enabled: true });
});
afterAll(async () => {
  await s?.close();
});

/** The answer is a 4xx naming `limit`, and the audit log holds the request and its refusal. */
function refused(r: Answer, limit: string) {
  expect(r.status, r.text).toBeGreaterThanOrEqual(400);
  expect(r.status, r.text).toBeLessThan(500);
  expect(r.text).toContain(limit);
  const records = s.records().filter((x) => x.request.id === r.id);
  expect(records.map((x) => x.type)).toEqual(['request', 'response']);
  expect(records[1]!.response.status_code).toBe(r.status);
}

const sysKeys = async (prefix: string) => (await s.svc.deps.store.partition('sys').list(prefix, { limit: 1000 })).items.length;

describe('input limits on every surface', () => {
  it('refuses a PKI write body nested 10,000 levels with a 400 naming the limit; no role is stored', async () => {
    const r = await s.call('POST', '/v1/pki/roles/deep', { token: s.root, raw: `{"allow_any_name":true,"x":${deep}}`, headers: json });
    refused(r, `the request body ${DEPTH}`);
    expect(r.status).toBe(400);
    expect((await s.call('GET', '/v1/pki/roles/deep', { token: s.root })).status).toBe(404);
  });

  it('refuses token meta nested 10,000 levels with a 400; no token is made', async () => {
    const before = await sysKeys('token/');
    const r = await s.call('POST', '/v1/auth/token/create', { token: s.root, raw: `{"meta":${deep}}`, headers: json });
    refused(r, `the request body ${DEPTH}`);
    expect(r.status).toBe(400);
    expect(await sysKeys('token/')).toBe(before);
  });

  it('refuses a deep body before authorising it as anything but a 4xx (no token: 403)', async () => {
    const r = await s.call('POST', '/v1/auth/token/create', { raw: `{"meta":${deep}}`, headers: json });
    expect(r.status).toBe(403);
    expect(s.records().filter((x) => x.request.id === r.id)).toHaveLength(2);
  });

  it('refuses a form body of more than 100,000 values with a 400', async () => {
    const r = await s.call('POST', '/v1/pki/roles/wide', {
      token: s.root,
      raw: 'allow_any_name=true' + '&x='.repeat(100_000),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    refused(r, 'the request body holds more than 100000 values');
    expect((await s.call('GET', '/v1/pki/roles/wide', { token: s.root })).status).toBe(404);
  });

  it('refuses JSON in a string field (cloud-B inline_policies) nested 10,000 levels with a 400 naming the field', async () => {
    const r = await s.call('POST', '/v1/cloud-b/role/deep', { token: s.root, body: { inline_policies: deep } });
    refused(r, `inline_policies ${DEPTH}`);
    expect((await s.call('GET', '/v1/cloud-b/role/deep', { token: s.root })).status).toBe(404);
  });

  it('refuses a catalog registration nested 10,000 levels with a 400 naming the limit; no node is registered', async () => {
    const r = await s.call('PUT', '/v1/catalog/register', {
      token: s.root,
      raw: `{"Node":"deep-node","Address":"10.0.0.1","NodeMeta":${deep}}`,
    });
    refused(r, `Request decode failed: the request body ${DEPTH}`);
    expect(r.status).toBe(400);
    const node = await s.call('GET', '/v1/catalog/node/deep-node', { token: s.root });
    expect(node.status).toBe(200);
    expect(node.text).toBe('null');
  });

  it('keeps a catalog KV value raw: a deeply nested JSON text is stored and read back as bytes', async () => {
    const put = await s.call('PUT', '/v1/kv/deep-value', { token: s.root, raw: deep });
    expect(put.text).toBe('true');
    const get = await s.call('GET', '/v1/kv/deep-value?raw', { token: s.root });
    expect(get.text).toBe(deep);
  });

  describe('ACME', () => {
    let key: { priv: CryptoKey; jwk: JWK };
    const url = () => `${s.url}/v1/pki/acme/new-account`;
    const nonce = async () => (await fetch(`${s.url}/v1/pki/acme/new-nonce`, { method: 'HEAD' })).headers.get('replay-nonce')!;
    const post = async (payload: string, extra: Record<string, unknown> = {}) => {
      const header = { alg: 'ES256', url: url(), nonce: await nonce(), jwk: key.jwk, ...extra };
      const jws = await new FlattenedSign(new TextEncoder().encode(payload)).setProtectedHeader(header as never).sign(key.priv);
      return s.call('POST', '/v1/pki/acme/new-account', { raw: JSON.stringify(jws), headers: { 'content-type': 'application/jose+json' } });
    };
    /** The mount's account records and account-key links. */
    const accounts = async () => {
      const part = s.svc.deps.store.partition('pki/pki');
      return (
        (await part.list('acme/account/', { limit: 1000 })).items.length + (await part.list('acme/key/', { limit: 1000 })).items.length
      );
    };

    beforeAll(async () => {
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      key = { priv: privateKey, jwk: await exportJWK(publicKey) };
    });

    it('refuses a JWS payload nested 10,000 levels with a malformed problem naming the limit; no account is made', async () => {
      const r = await post(`{"termsOfServiceAgreed":true,"contact":${deep}}`);
      refused(r, `the JWS payload ${DEPTH}`);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed' });
      expect(await accounts()).toBe(0);
    });

    it('refuses a protected header nested 10,000 levels (before its signature is checked)', async () => {
      const header = `{"alg":"ES256","url":${JSON.stringify(url())},"nonce":${JSON.stringify(await nonce())},"jwk":${JSON.stringify(key.jwk)},"x":${deep}}`;
      const jws = {
        protected: Buffer.from(header).toString('base64url'),
        payload: Buffer.from('{}').toString('base64url'),
        signature: 'AAAA',
      };
      const r = await s.call('POST', '/v1/pki/acme/new-account', {
        raw: JSON.stringify(jws),
        headers: { 'content-type': 'application/jose+json' },
      });
      refused(r, `the protected header ${DEPTH}`);
      expect(r.status).toBe(400);
    });

    it('refuses a JWS body nested 10,000 levels', async () => {
      const r = await s.call('POST', '/v1/pki/acme/new-account', {
        raw: `{"protected":"e30","payload":"","signature":"","x":${deep}}`,
        headers: { 'content-type': 'application/jose+json' },
      });
      refused(r, `the request body ${DEPTH}`);
      expect(r.status).toBe(400);
    });

    it('still makes an account from an ordinary payload', async () => {
      expect((await post('{"termsOfServiceAgreed":true}')).status).toBe(201);
    });
  });
});
