/**
 * The ACME server's protocol rules, driven with hand-made JWS (jose) so every refusal can be
 * provoked: nonces, URLs, signatures, account ownership, EAB, order states, CSR names, role
 * rules, key rollover, deactivation, revocation. Validation talks to real local servers (an
 * http-01 responder and the DNS fake); issued chains are checked with openssl.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import acme from 'acme-client';
import { createServer, type Server } from 'node:http';
import { FlattenedSign, exportJWK, generateKeyPair, type JWK, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../../lib/mount-partition';
import { AcmeStore } from '../../../lib/pki/acme/acme-store';
import { pkiEngine } from '../../../lib/pki/engine';
import { startDnsFake, type DnsFake } from '../../fakes/dns/server';
import { freePort } from '../../helpers/local-child';
import { text, verifyChain } from '../../helpers/openssl';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let dns: DnsFake;
let responder: Server;
const answers = new Map<string, string>();
const BASE = 'http://localhost/v1/pki';
let rootPem: string;
/** Moves the service's clock (tidy). */
let shift = 0;

const admin = (method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/pki/${path}`, { token: svc.root, ...(body ? { body } : {}) });

interface Key {
  priv: CryptoKey;
  jwk: JWK;
  alg: string;
}

async function newKey(alg = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { priv: privateKey, jwk: await exportJWK(publicKey), alg };
}

async function nonce(dir = 'acme/'): Promise<string> {
  const r = await call(svc.app, 'HEAD', `/v1/pki/${dir}new-nonce`);
  expect(r.status).toBe(200);
  return r.headers.get('replay-nonce')!;
}

async function jws(key: Key, url: string, payload: unknown, o: { kid?: string; nonce?: string; extra?: Record<string, unknown> } = {}) {
  const header = {
    alg: key.alg,
    url,
    nonce: o.nonce ?? (await nonce()),
    ...(o.kid ? { kid: o.kid } : { jwk: key.jwk }),
    ...(o.extra ?? {}),
  };
  const body = payload === '' ? new Uint8Array() : new TextEncoder().encode(JSON.stringify(payload));
  return new FlattenedSign(body).setProtectedHeader(header as never).sign(key.priv);
}

/** POSTs a JWS to `rel` (under /v1/pki/), signed for `url` (default: the same URL). */
async function post(rel: string, key: Key, payload: unknown, o: { kid?: string; nonce?: string; url?: string; contentType?: string } = {}) {
  const url = o.url ?? `${BASE}/${rel}`;
  const body = JSON.stringify(await jws(key, url, payload, o));
  return call(svc.app, 'POST', `/v1/pki/${rel}`, { raw: body, headers: { 'content-type': o.contentType ?? 'application/jose+json' } });
}

async function account(key?: Key, dir = 'acme/') {
  const k = key ?? (await newKey());
  const r = await post(`${dir}new-account`, k, { termsOfServiceAgreed: true });
  expect(r.status, r.text).toBe(201);
  return { key: k, kid: r.headers.get('location')! };
}

const rel = (url: string) => url.slice(BASE.length + 1);

async function order(a: { key: Key; kid: string }, names: string[], dir = 'acme/') {
  const r = await post(`${dir}new-order`, a.key, { identifiers: names.map((value) => ({ type: 'dns', value })) }, { kid: a.kid });
  expect(r.status, r.text).toBe(201);
  return { url: r.headers.get('location')!, body: r.json! };
}

async function thumb(jwk: JWK) {
  const { calculateJwkThumbprint } = await import('jose');
  return calculateJwkThumbprint(jwk, 'sha256');
}

/** Answers every authorization of the order by http-01 (correctly unless `wrong`). */
async function solve(a: { key: Key; kid: string }, o: { body: Record<string, unknown> }, wrong = false) {
  for (const authzUrl of o.body.authorizations as string[]) {
    const authz = await post(rel(authzUrl), a.key, '', { kid: a.kid });
    const ch = (authz.json!.challenges as { type: string; url: string; token: string }[]).find((c) => c.type === 'http-01')!;
    answers.set(ch.token, wrong ? 'not-it' : `${ch.token}.${await thumb(a.key.jwk)}`);
    const r = await post(rel(ch.url), a.key, {}, { kid: a.kid });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('link')).toContain(`<${authzUrl}>;rel="up"`);
  }
}

const csrDer = async (names: string[]) => {
  const [, csr] = await acme.crypto.createCsr({ commonName: names[0], altNames: names });
  return Buffer.from(csr.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
};

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine], now: () => Date.now() + shift });
  dns = await startDnsFake({ zones: ['acme.test'] });
  const port = await freePort();
  responder = createServer((req, res) => res.end(answers.get(req.url!.split('/').pop()!) ?? 'unknown token')).listen(port, '127.0.0.1');
  svc.deps.env.acme = { httpPort: port, tlsPort: 1 };
  for (const n of ['a', 'b', 'c', 'd', 'e', 'f', 'x.web']) dns.add(`${n}.acme.test`, 'A', '127.0.0.1');
  const root = await admin('POST', 'root/generate/internal', { common_name: 'ACME test root', key_type: 'ec', ttl: '8760h' });
  rootPem = root.json!.data.certificate;
  expect((await admin('POST', 'roles/web', { allowed_domains: 'web.acme.test', allow_subdomains: true, key_type: 'any' })).status).toBe(
    200,
  );
});

afterAll(async () => {
  responder?.close();
  await dns?.close();
});

describe('ACME disabled', () => {
  it('answers 403 problems with a nonce while config/acme has enabled=false', async () => {
    const r = await call(svc.app, 'GET', '/v1/pki/acme/directory');
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:unauthorized' });
    expect(r.headers.get('replay-nonce')).toBeTruthy();
  });

  it('refuses a config naming a missing role, a bad policy or resolver (fail closed)', async () => {
    expect((await admin('POST', 'config/acme', { default_directory_policy: 'role:nope' })).status).toBe(400);
    expect((await admin('POST', 'config/acme', { default_directory_policy: 'anything' })).status).toBe(400);
    expect((await admin('POST', 'config/acme', { dns_resolver: 'dns.example:53' })).status).toBe(400);
    expect((await admin('POST', 'config/acme', { eab_policy: 'sometimes' })).status).toBe(400);
    expect((await admin('POST', 'config/acme', { allowed_issuers: ['other'] })).status).toBe(400);
    expect((await admin('POST', 'config/cluster', { path: 'ftp://x' })).status).toBe(400);
    expect((await admin('POST', 'config/cluster', { aia_path: 'http://ca.example/v1/pki' })).status).toBe(400);
  });

  it('is enabled with a resolver and the cluster path', async () => {
    const r = await admin('POST', 'config/acme', { enabled: true, dns_resolver: dns.address });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data).toMatchObject({
      enabled: true,
      default_directory_policy: 'sign-verbatim',
      eab_policy: 'not-required',
      max_ttl: '2160h0m0s',
    });
    expect((await admin('POST', 'config/cluster', { path: BASE })).status).toBe(200);
    expect((await admin('GET', 'config/cluster')).json!.data).toEqual({ path: BASE, aia_path: '' });
  });
});

describe('directory and nonces', () => {
  it('lists the resources of each directory, with the index link', async () => {
    const d = await call(svc.app, 'GET', '/v1/pki/acme/directory');
    expect(d.status).toBe(200);
    expect(d.json).toMatchObject({
      newNonce: `${BASE}/acme/new-nonce`,
      newAccount: `${BASE}/acme/new-account`,
      meta: { externalAccountRequired: false },
    });
    expect(d.headers.get('link')).toBe(`<${BASE}/acme/directory>;rel="index"`);
    const r = await call(svc.app, 'GET', '/v1/pki/roles/web/acme/directory');
    expect(r.json!.newOrder).toBe(`${BASE}/roles/web/acme/new-order`);
    expect((await call(svc.app, 'GET', '/v1/pki/roles/missing/acme/directory')).status).toBe(404);
  });

  it('GET on a POST resource is 405 with a nonce and a problem document', async () => {
    const r = await call(svc.app, 'GET', '/v1/pki/acme/new-order');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(r.headers.get('replay-nonce')).toBeTruthy();
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed', status: 405 });
  });

  it('GET new-nonce is 204 with a nonce; a nonce is used once, even by concurrent requests', async () => {
    const g = await call(svc.app, 'GET', '/v1/pki/acme/new-nonce');
    expect(g.status).toBe(204);
    expect(g.headers.get('cache-control')).toBe('no-store');
    const key = await newKey();
    const n = await nonce();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post('acme/new-account', key, { termsOfServiceAgreed: true }, { nonce: n })),
    );
    expect(results.filter((r) => r.status === 201 || r.status === 200)).toHaveLength(1);
    for (const r of results.filter((x) => x.status >= 400)) {
      expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:badNonce' });
      expect(r.headers.get('replay-nonce')).toBeTruthy();
    }
    const unknown = await post('acme/new-account', key, {}, { nonce: '0ffffffffAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'.slice(0, 31) });
    expect(unknown.json).toMatchObject({ type: 'urn:ietf:params:acme:error:badNonce' });
  });
});

describe('JWS checks', () => {
  it('refuses a url other than the request URL, a wrong content type, alg none and MAC algorithms, a bad signature', async () => {
    const key = await newKey();
    const wrongUrl = await post('acme/new-account', key, {}, { url: `${BASE}/acme/new-order` });
    expect(wrongUrl.status).toBe(403);
    expect(wrongUrl.json).toMatchObject({ type: 'urn:ietf:params:acme:error:unauthorized' });
    expect((await post('acme/new-account', key, {}, { contentType: 'application/json' })).status).toBe(415);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    for (const alg of ['none', 'HS256']) {
      const body = JSON.stringify({
        protected: b64({ alg, jwk: key.jwk, url: `${BASE}/acme/new-account`, nonce: await nonce() }),
        payload: b64({}),
        signature: '',
      });
      const r = await call(svc.app, 'POST', '/v1/pki/acme/new-account', {
        raw: body,
        headers: { 'content-type': 'application/jose+json' },
      });
      expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:badSignatureAlgorithm' });
      expect(r.json!.algorithms).toContain('ES256');
    }
    const signed = await jws(key, `${BASE}/acme/new-account`, { a: 1 });
    const forged = JSON.stringify({ ...signed, payload: b64({ a: 2 }) });
    const r = await call(svc.app, 'POST', '/v1/pki/acme/new-account', {
      raw: forged,
      headers: { 'content-type': 'application/jose+json' },
    });
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:malformed', detail: 'the JWS signature is invalid' });
    for (const junk of ['', 'null', '[]', '{"protected":1}', '{"protected":"!!","payload":"","signature":""}']) {
      const j = await call(svc.app, 'POST', '/v1/pki/acme/new-account', {
        raw: junk,
        headers: { 'content-type': 'application/jose+json' },
      });
      expect(j.status).toBe(400);
      expect(j.json!.type).toMatch(/^urn:ietf:params:acme:error:/);
    }
  });

  it('takes ES256, ES384, RS256 and EdDSA account keys', async () => {
    for (const alg of ['ES256', 'ES384', 'RS256', 'EdDSA']) await account(await newKey(alg));
  });
});

describe('accounts', () => {
  it('a known key gets its account back (200); onlyReturnExisting; contacts checked', async () => {
    const a = await account();
    const again = await post('acme/new-account', a.key, {});
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBe(a.kid);
    const other = await newKey();
    expect((await post('acme/new-account', other, { onlyReturnExisting: true })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:accountDoesNotExist',
    });
    expect((await post('acme/new-account', other, { contact: ['tel:+1555'] })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:unsupportedContact',
    });
    expect((await post('acme/new-account', other, { contact: ['mailto:a@b.c?subject=x'] })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:invalidContact',
    });
    const upd = await post(rel(a.kid), a.key, { contact: ['mailto:ops@acme.test'] }, { kid: a.kid });
    expect(upd.json).toMatchObject({ status: 'valid', contact: ['mailto:ops@acme.test'] });
  });

  it('keyChange moves the account to a new key; the old key no longer signs for it', async () => {
    const a = await account();
    const next = await newKey('ES384');
    const url = `${BASE}/acme/key-change`;
    const inner = await new FlattenedSign(new TextEncoder().encode(JSON.stringify({ account: a.kid, oldKey: a.key.jwk })))
      .setProtectedHeader({ alg: next.alg, jwk: next.jwk, url } as never)
      .sign(next.priv);
    const r = await post('acme/key-change', a.key, inner, { kid: a.kid });
    expect(r.status, r.text).toBe(200);
    expect((await post(rel(a.kid), a.key, '', { kid: a.kid })).status).toBe(400);
    expect((await post(rel(a.kid), next, '', { kid: a.kid })).status).toBe(200);
    expect((await post('acme/new-account', next, { onlyReturnExisting: true })).headers.get('location')).toBe(a.kid);
    // A key in use by another account is refused with 409 and that account's URL.
    const b = await account();
    const inner2 = await new FlattenedSign(new TextEncoder().encode(JSON.stringify({ account: b.kid, oldKey: b.key.jwk })))
      .setProtectedHeader({ alg: next.alg, jwk: next.jwk, url } as never)
      .sign(next.priv);
    const clash = await post('acme/key-change', b.key, inner2, { kid: b.kid });
    expect(clash.status).toBe(409);
    expect(clash.headers.get('location')).toBe(a.kid);
  });

  it('a deactivated account can do nothing more', async () => {
    const a = await account();
    expect((await post(rel(a.kid), a.key, { status: 'deactivated' }, { kid: a.kid })).json).toMatchObject({ status: 'deactivated' });
    const r = await post('acme/new-order', a.key, { identifiers: [{ type: 'dns', value: 'a.acme.test' }] }, { kid: a.kid });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:unauthorized' });
  });
});

describe('orders', () => {
  it('issues through http-01; the chain verifies with openssl; revocation by the certificate key', async () => {
    const a = await account();
    const o = await order(a, ['a.acme.test', 'b.acme.test']);
    expect(o.body.status).toBe('pending');
    const early = await post(rel(o.body.finalize), a.key, { csr: await csrDer(['a.acme.test', 'b.acme.test']) }, { kid: a.kid });
    expect(early.status).toBe(403);
    expect(early.json).toMatchObject({ type: 'urn:ietf:params:acme:error:orderNotReady' });
    await solve(a, o);
    expect((await post(rel(o.url), a.key, '', { kid: a.kid })).json!.status).toBe('ready');
    const mismatch = await post(rel(o.body.finalize), a.key, { csr: await csrDer(['a.acme.test', 'c.acme.test']) }, { kid: a.kid });
    expect(mismatch.json).toMatchObject({ type: 'urn:ietf:params:acme:error:badCSR' });
    const [certKey, csr] = await acme.crypto.createCsr({ commonName: 'a.acme.test', altNames: ['a.acme.test', 'b.acme.test'] });
    const der = Buffer.from(csr.toString().replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
    const fin = await post(rel(o.body.finalize), a.key, { csr: der }, { kid: a.kid });
    expect(fin.status, fin.text).toBe(200);
    expect(fin.json!.status).toBe('valid');
    const cert = await post(rel(fin.json!.certificate), a.key, '', { kid: a.kid });
    expect(cert.headers.get('content-type')).toMatch(/application\/pem-certificate-chain/);
    const leaf = cert.text.split(/(?<=-----END CERTIFICATE-----\n)/)[0]!;
    expect(verifyChain(leaf, rootPem).ok).toBe(true);
    // Another account may not read the order, nor revoke its certificate.
    const b = await account();
    expect((await post(rel(o.url), b.key, '', { kid: b.kid })).status).toBe(403);
    const leafDer = Buffer.from(leaf.replace(/-----[^-]+-----|\s/g, ''), 'base64').toString('base64url');
    expect((await post('acme/revoke-cert', b.key, { certificate: leafDer }, { kid: b.kid })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:unauthorized',
    });
    // The certificate's own key revokes it (a jwk request).
    const { importPKCS8 } = await import('jose');
    const ck = await importPKCS8(certKey.toString(), 'RS256', { extractable: true });
    const { createPublicKey } = await import('node:crypto');
    const certJwk = createPublicKey(certKey.toString()).export({ format: 'jwk' }) as JWK;
    expect((await post('acme/revoke-cert', a.key, { certificate: leafDer, reason: 7 }, { kid: a.kid })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:badRevocationReason',
    });
    const byKey = await post('acme/revoke-cert', { priv: ck, jwk: certJwk, alg: 'RS256' }, { certificate: leafDer, reason: 1 });
    expect(byKey.status, byKey.text).toBe(200);
    const crl = await call(svc.app, 'GET', '/v1/pki/crl/pem');
    expect(text(crl.text, 'crl')).toMatch(/Key Compromise/);
    expect((await post('acme/revoke-cert', a.key, { certificate: leafDer }, { kid: a.kid })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:alreadyRevoked',
    });
  });

  it('an order left processing by an instance that ended is ready again after two minutes, and finalizes', async () => {
    const a = await account();
    const o = await order(a, ['b.acme.test']);
    await solve(a, o);
    const store = new AcmeStore(svc.deps, mountPartition(svc.deps, 'pki', 'pki'));
    const id = o.url.split('/').pop()!;
    const rec = (await store.order(id))!;
    await store.putOrder({ ...rec.value, status: 'processing', started: svc.deps.now() }, rec.version);
    expect((await post(rel(o.url), a.key, '', { kid: a.kid })).json!.status).toBe('processing');
    const csr = await csrDer(['b.acme.test']);
    expect((await post(rel(o.body.finalize as string), a.key, { csr }, { kid: a.kid })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:orderNotReady',
    });
    shift = 3 * 60_000;
    try {
      expect((await post(rel(o.url), a.key, '', { kid: a.kid })).json!.status).toBe('ready');
      const fin = await post(rel(o.body.finalize as string), a.key, { csr }, { kid: a.kid });
      expect(fin.json!.status, fin.text).toBe('valid');
    } finally {
      shift = 0;
    }
  });

  it('a wrong http-01 answer makes the authorization and the order invalid', async () => {
    const a = await account();
    const o = await order(a, ['c.acme.test']);
    await solve(a, o, true);
    const authz = await post(rel(o.body.authorizations[0]), a.key, '', { kid: a.kid });
    expect(authz.json!.status).toBe('invalid');
    expect(authz.json!.challenges.find((c: { type: string }) => c.type === 'http-01').error.type).toBe(
      'urn:ietf:params:acme:error:incorrectResponse',
    );
    expect((await post(rel(o.url), a.key, '', { kid: a.kid })).json!.status).toBe('invalid');
  });

  it("the account's orders list leaves out invalid orders (RFC 8555 section 7.1.2.1), keeps pending and valid ones", async () => {
    const a = await account();
    const pending = await order(a, ['d.acme.test']);
    const valid = await order(a, ['e.acme.test']);
    await solve(a, valid);
    const fin = await post(rel(valid.body.finalize), a.key, { csr: await csrDer(['e.acme.test']) }, { kid: a.kid });
    expect(fin.json!.status, fin.text).toBe('valid');
    const wrong = await order(a, ['f.acme.test']);
    await solve(a, wrong, true);
    const dropped = await order(a, ['d.acme.test']);
    const deactivated = await post(rel(dropped.body.authorizations[0]), a.key, { status: 'deactivated' }, { kid: a.kid });
    expect(deactivated.json!.status, deactivated.text).toBe('deactivated');
    for (const [o, status] of [
      [pending, 'pending'],
      [valid, 'valid'],
      [wrong, 'invalid'],
      [dropped, 'invalid'],
    ] as const)
      expect((await post(rel(o.url), a.key, '', { kid: a.kid })).json!.status).toBe(status);

    const ordersUrl = (await post(rel(a.kid), a.key, '', { kid: a.kid })).json!.orders as string;
    expect(ordersUrl).toBe(`${a.kid}/orders`);
    const list = await post(rel(ordersUrl), a.key, '', { kid: a.kid });
    expect(list.status, list.text).toBe(200);
    expect([...list.json!.orders].sort()).toEqual([pending.url, valid.url].sort());
  });

  it('an account cannot answer or read another account’s authorization', async () => {
    const a = await account();
    const b = await account();
    const o = await order(a, ['d.acme.test']);
    const r = await post(rel(o.body.authorizations[0]), b.key, '', { kid: b.kid });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:unauthorized' });
  });

  it('identifiers: wildcards get dns-01 only, IPs no dns-01, bad names rejected', async () => {
    const a = await account();
    const o = await post(
      'acme/new-order',
      a.key,
      {
        identifiers: [
          { type: 'dns', value: '*.acme.test' },
          { type: 'ip', value: '127.0.0.1' },
        ],
      },
      { kid: a.kid },
    );
    expect(o.status, o.text).toBe(201);
    const types = [];
    for (const u of o.json!.authorizations) {
      const z = (await post(rel(u), a.key, '', { kid: a.kid })).json!;
      types.push([z.identifier.value, z.wildcard ?? false, z.challenges.map((c: { type: string }) => c.type).sort()]);
    }
    expect(types).toEqual([
      ['acme.test', true, ['dns-01']],
      ['127.0.0.1', false, ['http-01', 'tls-alpn-01']],
    ]);
    for (const bad of [
      { type: 'dns', value: 'a..b' },
      { type: 'dns', value: '1.2.3.4' },
      { type: 'ip', value: '999.1.1.1' },
    ]) {
      const r = await post('acme/new-order', a.key, { identifiers: [bad] }, { kid: a.kid });
      expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:rejectedIdentifier' });
    }
    expect((await post('acme/new-order', a.key, { identifiers: [{ type: 'email', value: 'a@b.c' }] }, { kid: a.kid })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:unsupportedIdentifier',
    });
  });

  it('a role directory applies the role: a name outside it is rejected', async () => {
    const a = await account(undefined, 'roles/web/acme/');
    const r = await post('roles/web/acme/new-order', a.key, { identifiers: [{ type: 'dns', value: 'a.acme.test' }] }, { kid: a.kid });
    expect(r.json).toMatchObject({ type: 'urn:ietf:params:acme:error:rejectedIdentifier' });
    // Accounts belong to their directory.
    const x = await post('acme/new-order', a.key, { identifiers: [{ type: 'dns', value: 'a.acme.test' }] }, { kid: a.kid });
    expect(x.status).toBe(400);
    const o = await order(a, ['x.web.acme.test'], 'roles/web/acme/');
    await solve(a, o);
    const fin = await post(rel(o.body.finalize), a.key, { csr: await csrDer(['x.web.acme.test']) }, { kid: a.kid });
    expect(fin.json!.status, fin.text).toBe('valid');
  });
});

describe('external account binding', () => {
  it('new-account-required: refused without, accepted once with a new-eab key, never twice; the key is sealed at rest', async () => {
    expect((await admin('POST', 'config/acme', { eab_policy: 'new-account-required' })).status).toBe(200);
    expect((await call(svc.app, 'GET', '/v1/pki/acme/directory')).json!.meta.externalAccountRequired).toBe(true);
    const key = await newKey();
    expect((await post('acme/new-account', key, {})).json).toMatchObject({ type: 'urn:ietf:params:acme:error:externalAccountRequired' });
    const eab = (await admin('POST', 'acme/new-eab')).json!.data;
    expect(eab).toMatchObject({ key_type: 'hs', acme_directory: 'acme/directory' });
    expect((await admin('LIST', 'eab')).json!.data.keys).toContain(eab.id);
    const url = `${BASE}/acme/new-account`;
    const binding = async (k: Key) =>
      new FlattenedSign(new TextEncoder().encode(JSON.stringify(k.jwk)))
        .setProtectedHeader({ alg: 'HS256', kid: eab.id, url })
        .sign(Buffer.from(eab.key, 'base64url'));
    const raw = JSON.stringify((await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items);
    expect(raw).not.toContain(eab.key);
    expect(raw).not.toContain(Buffer.from(eab.key, 'base64url').toString('base64'));
    const ok = await post('acme/new-account', key, { externalAccountBinding: await binding(key) });
    expect(ok.status, ok.text).toBe(201);
    const second = await newKey();
    expect((await post('acme/new-account', second, { externalAccountBinding: await binding(second) })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:unauthorized',
    });
    // A binding signed over another key is refused.
    const eab2 = (await admin('POST', 'acme/new-eab')).json!.data;
    const third = await newKey();
    const forOther = await new FlattenedSign(new TextEncoder().encode(JSON.stringify(second.jwk)))
      .setProtectedHeader({ alg: 'HS256', kid: eab2.id, url })
      .sign(Buffer.from(eab2.key, 'base64url'));
    expect((await post('acme/new-account', third, { externalAccountBinding: forOther })).json).toMatchObject({
      type: 'urn:ietf:params:acme:error:unauthorized',
    });
    expect((await admin('DELETE', `eab/${eab2.id}`)).status).toBe(204);
    expect((await admin('POST', 'config/acme', { eab_policy: 'not-required' })).status).toBe(200);
  });
});

describe('tidy_acme', () => {
  it('removes expired nonces, expired orders with their authorizations, and accounts without orders past the buffer', async () => {
    const a = await account();
    await order(a, ['e.acme.test']);
    const before = JSON.stringify((await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items);
    expect(before).toContain('acme/nonce/');
    expect(before).toContain('acme/authz/');
    shift = 100 * 24 * 3600_000;
    try {
      const t = await admin('POST', 'tidy', { tidy_acme: true, acme_account_safety_buffer: '720h' });
      expect(t.status, t.text).toBe(202);
      let status: Record<string, unknown> = {};
      for (let i = 0; i < 100 && status.state !== 'Finished'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        status = (await admin('GET', 'tidy-status')).json!.data;
      }
      expect(status).toMatchObject({ state: 'Finished', tidy_acme: true, acme_account_safety_buffer: 720 * 3600 });
      expect(status.acme_orders_deleted_count).toBeGreaterThan(3);
      expect(status.acme_account_deleted_count).toBeGreaterThan(3);
      const after = JSON.stringify((await svc.client.send(new ScanCommand({ TableName: svc.table }))).Items);
      expect(after).not.toContain('acme/nonce/');
      expect(after).not.toContain('acme/authz/');
      expect(after).not.toContain(`acme/account/${a.kid.split('/').pop()}`);
    } finally {
      shift = 0;
    }
    // The certificates issued stay (their orders were valid): tidy_cert_store is what removes those.
    expect((await admin('LIST', 'certs')).json!.data.keys.length).toBeGreaterThan(0);
  });
});

describe('hostile input', () => {
  it('answers malformed headers, keys, payloads and paths with 4xx problem documents, never a 5xx', async () => {
    const odd: unknown[] = [
      null,
      true,
      0,
      -1,
      1e309,
      '',
      'x'.repeat(5000),
      [],
      {},
      { __proto__: { a: 1 } },
      '__proto__',
      '../..',
      '\u0000',
      '😀',
    ];
    let seed = 7;
    const pick = <T>(xs: T[]): T => xs[(seed = (seed * 1103515245 + 12345) % 2147483648) % xs.length]!;
    const a = await account();
    const o = await order(a, ['f.acme.test']);
    const targets = [
      'acme/new-account',
      'acme/new-order',
      rel(o.url),
      `${rel(o.url)}/finalize`,
      'acme/key-change',
      'acme/revoke-cert',
      rel(a.kid),
    ];
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    for (let i = 0; i < 150; i++) {
      const target = pick(targets);
      const url = `${BASE}/${target}`;
      const n = await nonce();
      const kind = i % 5;
      let body: string;
      if (kind === 0) {
        // A valid signature over an odd payload.
        const payload = {
          identifiers: pick(odd),
          csr: pick(odd),
          certificate: pick(odd),
          contact: pick(odd),
          status: pick(odd),
          reason: pick(odd),
          account: pick(odd),
          oldKey: pick(odd),
          onlyReturnExisting: pick(odd),
          externalAccountBinding: pick(odd),
        };
        body = JSON.stringify(await jws(a.key, url, payload, { kid: a.kid, nonce: n }));
      } else if (kind === 1) {
        body = JSON.stringify({
          protected: b64({
            alg: pick(['ES256', 'RS256', 'EdDSA', ...odd]),
            jwk: pick([...odd, { kty: 'EC', crv: 'P-256', x: pick(odd), y: 'AA' }, { kty: 'RSA', n: 'AQAB', e: 'AQAB' }]),
            url,
            nonce: n,
          }),
          payload: b64({}),
          signature: 'AAAA',
        });
      } else if (kind === 2) {
        body = JSON.stringify({
          protected: b64({
            alg: 'ES256',
            kid: pick([...odd, `${BASE}/acme/account/${'0'.repeat(36)}`, `${a.kid}/../x`]),
            url: pick([url, ...odd]),
            nonce: pick([n, ...odd]),
          }),
          payload: b64(pick(odd)),
          signature: pick(['', 'A', '!!']),
        });
      } else if (kind === 3) {
        body = JSON.stringify(await jws(a.key, url, pick(odd), { kid: a.kid, nonce: n }));
      } else {
        body = pick(['{', '"x"', '[]', '{"protected":null,"payload":null,"signature":null}', 'x'.repeat(100_000)]);
      }
      const path = i % 11 === 0 ? `acme/order/${encodeURIComponent(pick(['%00', '..', '__proto__', 'x'.repeat(300)]))}` : target;
      const r = await call(svc.app, 'POST', `/v1/pki/${path}`, { raw: body, headers: { 'content-type': 'application/jose+json' } });
      expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
      expect(r.status, `${path} ${kind}: ${r.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
      if (r.status !== 404 || r.json?.type) expect(r.json?.type, r.text.slice(0, 200)).toMatch(/^urn:ietf:params:acme:error:/);
    }
  });
});
