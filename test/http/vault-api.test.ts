/** The edge (lib/http/vault-api.ts): raw-body paths, response headers on every kind of answer, HEAD. */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../lib/config';
import { createVaultApi } from '../../lib/http/vault-api';
import { f } from '../../lib/http/fields';
import { definePath, type Result } from '../../lib/http/path';
import { listen, type Served } from '../../lib/local/http-server';
import { pkiEngine } from '../../lib/pki/engine';
import { call, createTestService, tokenWith, type TestService } from '../helpers/service';

let svc: TestService;
let edge: Hono;
let server: Served;
const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
const tagged: Record<string, string> = { 'Replay-Nonce': 'n-1', Link: '<https://example.test/dir>;rel="index"' };

/** Test-only paths: an echo that takes its body raw, and answers of each kind carrying headers. */
const paths = [
  definePath({
    pattern: 'echo/:name',
    fields: { name: f.pathParam() },
    rawBody: true,
    operations: {
      write: async (req) => ({
        raw: { body: req.body ?? new Uint8Array(), contentType: 'application/octet-stream', status: 201 },
        headers: { 'X-Echo-Type': req.contentType ?? 'none', 'X-Echo-Name': req.data.name, 'X-Echo-Length': String(req.body?.byteLength) },
      }),
      read: async () => ({ data: { ok: true } }),
    },
    help: 'echo the raw body',
  }),
  definePath({
    pattern: 'answer/:kind',
    fields: { kind: f.pathParam() },
    operations: {
      read: async (req): Promise<Result> => {
        const kind = req.data.kind;
        if (kind === 'raw')
          return { raw: { body: 'plain', contentType: 'text/plain' }, headers: { ...tagged, 'Content-Type': 'text/evil' } };
        if (kind === 'empty') return { headers: tagged };
        return { data: { kind }, headers: { ...tagged, 'X-Request-Id': 'forged' } };
      },
    },
    help: 'answers carrying headers',
  }),
];

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  edge = createVaultApi({ name: 'edge-test', deps: svc.deps, routes: [{ prefix: 'edge', mount, paths }] });
  await call(svc.app, 'POST', '/v1/pki/root/generate/internal', { token: svc.root, body: { common_name: 'Edge Root', key_type: 'ec' } });
  server = await listen(async (req) => (new URL(req.url).pathname.startsWith('/v1/edge/') ? edge : svc.app).fetch(req), { port: 0 });
  await call(svc.app, 'POST', '/v1/pki/roles/web', { token: svc.root, body: { allow_any_name: true, key_type: 'ec' } });
});

afterAll(async () => server?.close());

describe('a raw-body path', () => {
  it('hands the handler the bytes and content type, unparsed and unvalidated (over HTTP)', async () => {
    const bytes = new Uint8Array([0x30, 0x82, 0x00, 0x7b, 0xff, 0x00, 0x7b]);
    const r = await fetch(`${server.url}/v1/edge/echo/one`, {
      method: 'POST',
      headers: { 'x-svc-token': svc.root, 'content-type': 'application/ocsp-request' },
      body: bytes,
    });
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/octet-stream');
    expect(r.headers.get('x-echo-type')).toBe('application/ocsp-request');
    expect(r.headers.get('x-echo-name')).toBe('one');
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(bytes);
  });

  it('takes a body that is not JSON, and one without a content type', async () => {
    const r = await call(edge, 'PUT', '/v1/edge/echo/two', { token: svc.root, raw: '{not json' });
    expect(r.status).toBe(201);
    expect(r.text).toBe('{not json');
  });

  it('still needs a token and still holds the size limit', async () => {
    expect((await call(edge, 'POST', '/v1/edge/echo/x', { raw: 'abc' })).status).toBe(403);
    const big = await call(edge, 'POST', '/v1/edge/echo/x', { token: svc.root, raw: new Uint8Array(BODY_LIMIT + 1) });
    expect(big.status).toBe(413);
  });
});

describe('response headers', () => {
  it("ride on an envelope answer; the request id stays the edge's", async () => {
    const r = await call(edge, 'GET', '/v1/edge/answer/envelope', { token: svc.root });
    expect(r.status).toBe(200);
    expect(r.headers.get('replay-nonce')).toBe('n-1');
    expect(r.headers.get('link')).toBe(tagged.Link);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('x-request-id')).toBe(r.json!.request_id);
  });

  it('ride on a raw answer, whose own content type wins', async () => {
    const r = await call(edge, 'GET', '/v1/edge/answer/raw', { token: svc.root });
    expect(r.text).toBe('plain');
    expect(r.headers.get('content-type')).toBe('text/plain');
    expect(r.headers.get('replay-nonce')).toBe('n-1');
  });

  it('ride on an empty (204) answer', async () => {
    const r = await call(edge, 'GET', '/v1/edge/answer/empty', { token: svc.root });
    expect(r.status).toBe(204);
    expect(r.headers.get('replay-nonce')).toBe('n-1');
  });

  it('ride on a wrapped answer', async () => {
    const r = await call(edge, 'GET', '/v1/edge/answer/envelope', { token: svc.root, headers: { 'x-vault-wrap-ttl': '60s' } });
    expect(r.status).toBe(200);
    expect(r.json!.wrap_info.token).toEqual(expect.any(String));
    expect(r.headers.get('replay-nonce')).toBe('n-1');
  });
});

describe('HEAD', () => {
  it('answers the GET status and headers without the body (public PEM)', async () => {
    const get = await call(svc.app, 'GET', '/v1/pki/ca/pem');
    const r = await call(svc.app, 'HEAD', '/v1/pki/ca/pem');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(r.headers.get('content-type')).toMatch(/pem/);
    expect(r.text).toBe('');
    const overHttp = await fetch(`${server.url}/v1/pki/ca/pem`, { method: 'HEAD' });
    expect(overHttp.status).toBe(200);
    expect(overHttp.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(await overHttp.text()).toBe('');
    // The GET's length, so a keep-alive client knows the answer is complete (no reconnect per HEAD).
    expect(overHttp.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
  });

  it('is authorised as a read: 403 without a token or without read, 200 with', async () => {
    expect((await call(svc.app, 'HEAD', '/v1/pki/roles/web')).status).toBe(403);
    await call(svc.app, 'PUT', '/v1/sys/policy/edge-list', {
      token: svc.root,
      body: { policy: 'path "pki/roles/*" { capabilities = ["list"] }' },
    });
    await call(svc.app, 'PUT', '/v1/sys/policy/edge-read', {
      token: svc.root,
      body: { policy: 'path "pki/roles/*" { capabilities = ["read"] }' },
    });
    expect((await call(svc.app, 'HEAD', '/v1/pki/roles/web', { token: await tokenWith(svc, ['edge-list']) })).status).toBe(403);
    const r = await call(svc.app, 'HEAD', '/v1/pki/roles/web', { token: await tokenWith(svc, ['edge-read']) });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.text).toBe('');
    expect((await call(svc.app, 'HEAD', '/v1/pki/roles/nope', { token: svc.root })).status).toBe(404);
  });

  it('is served by sys and is never wrapped', async () => {
    const r = await call(svc.app, 'HEAD', '/v1/sys/mounts', { token: svc.root, headers: { 'x-vault-wrap-ttl': '60s' } });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });

  it('stays 405 on a path without a read', async () => {
    const r = await call(svc.app, 'HEAD', '/v1/pki/issue/web', { token: svc.root });
    expect(r.status).toBe(405);
    expect(r.text).toBe('');
    expect((await call(edge, 'HEAD', '/v1/edge/answer/envelope', { token: svc.root })).headers.get('replay-nonce')).toBe('n-1');
  });

  it('is 405 on a read that acts (a CRL rotation here; cloud creds alike): nothing runs for an answer nobody sees', async () => {
    const before = await call(svc.app, 'GET', '/v1/pki/crl/pem');
    const r = await call(svc.app, 'HEAD', '/v1/pki/crl/rotate', { token: svc.root });
    expect(r.status).toBe(405);
    expect((await call(svc.app, 'GET', '/v1/pki/crl/pem')).text).toBe(before.text);
  });
});
