/**
 * wrap (lib/http/pipeline/wrap.ts), the step that makes the answer from the handler's result:
 * a raw answer as it is (its content type named by the result or by the path's one declared
 * media type), an empty one (204, or the status the result chose), or an envelope with the
 * handler's warnings and the ignored-parameter warning, its data also at the top level when the
 * result asks. When the request asks (X-Vault-Wrap-TTL or X-Svc-Wrap-TTL), an answer with data or
 * auth is kept under a new single-use wrapping token (deps.wrapping) and the caller gets its
 * wrap_info; empty, raw and warning-only answers are never wrapped, nor is a HEAD. Driven through
 * a minimal Vault-style app with test-only paths on a real test service's deps; wrapped answers
 * are unwrapped through the service's own sys/wrapping/unwrap.
 */
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../lib/http/fields';
import { definePath, type Result } from '../../../lib/http/path';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, tokenCount, type TestService } from '../../helpers/service';

const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;

const results: Record<string, Result> = {
  data: { data: { secret: 'value' } },
  created: { data: { made: true }, status: 201 },
  auth: { auth: { client_token: 'issued-token', accessor: 'issued-accessor', policies: ['p'] } },
  warnings: { warnings: ['careful'] },
  lease: { lease: { id: 'edge/x/1', duration: 30, renewable: false } },
  empty: {},
  accepted: { status: 202 },
  top: { data: { version: '1.2.3', sealed: false }, topLevelData: true },
  'top-nodata': { warnings: ['w'], topLevelData: true },
  raw: { raw: { body: '-----BEGIN X-----\n', contentType: 'application/x-pem-file' } },
  'raw-created': { raw: { body: new Uint8Array([1, 2, 3]), contentType: 'application/octet-stream', status: 201 } },
};

const paths = [
  definePath({
    pattern: 'answer/:kind',
    fields: { kind: f.pathParam(), known: f.string() },
    operations: { read: async (req) => results[req.data.kind] },
    help: 'an answer of each kind',
  }),
  definePath({
    pattern: 'pem',
    fields: {},
    answers: ['application/pem-certificate-chain'],
    operations: { read: async () => ({ raw: { body: 'chain' } }) },
    help: 'a raw answer typed by its one declared media type',
  }),
  definePath({
    pattern: 'either',
    fields: {},
    answers: ['application/pkix-cert', 'application/x-pem-file'],
    operations: { read: async () => ({ raw: { body: 'which?' } }) },
    help: 'a raw answer with no type, on a path that declares two',
  }),
  definePath({
    pattern: 'untyped',
    fields: {},
    operations: { read: async () => ({ raw: { body: 'which?' } }) },
    help: 'a raw answer with no type, on a path that declares none',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  app = createVaultApi({ name: 'wrap-test', deps: svc.deps, routes: [{ prefix: 'edge', mount, paths }] });
});

const read = (kind: string, headers: Record<string, string> = {}, query = '') =>
  call(app, 'GET', `/v1/edge/answer/${kind}${query}`, { token: svc.root, headers });
const wrapTtl = { 'x-vault-wrap-ttl': '60s' };

async function unwrap(token: string) {
  return call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token, body: {} });
}

describe('wrap: envelope answers', () => {
  it("answers 200 with the result's data, or the status the result chose", async () => {
    const r = await read('data');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ data: { secret: 'value' }, wrap_info: null, warnings: null });
    expect((await read('created')).status).toBe(201);
  });

  it("carries the handler's warnings, then the ignored-parameter warning", async () => {
    expect((await read('warnings', {}, '?stray=1')).json!.warnings).toEqual([
      'careful',
      'Endpoint ignored these unrecognized parameters: [stray]',
    ]);
  });

  it('answers a result with only warnings, or only a lease, as an envelope (it has a body)', async () => {
    const w = await read('warnings');
    expect(w.status).toBe(200);
    expect(w.json).toMatchObject({ data: null, warnings: ['careful'] });
    const l = await read('lease');
    expect(l.status).toBe(200);
    expect(l.json).toMatchObject({ lease_id: 'edge/x/1', lease_duration: 30, data: null });
  });

  it('puts the data at the top level too when the result asks, and only when it has data', async () => {
    const r = await read('top');
    expect(r.json).toMatchObject({ version: '1.2.3', sealed: false, data: { version: '1.2.3', sealed: false } });
    const none = await read('top-nodata');
    expect(Object.keys(none.json!).sort()).toEqual([
      'auth',
      'data',
      'lease_duration',
      'lease_id',
      'renewable',
      'request_id',
      'warnings',
      'wrap_info',
    ]);
  });
});

describe('wrap: empty answers', () => {
  it('answers 204 with no body, or the status the result chose', async () => {
    const r = await read('empty');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    const accepted = await read('accepted');
    expect(accepted.status).toBe(202);
    expect(accepted.text).toBe('');
  });

  it('gives no ignored-parameter warning where there is no body to carry it', async () => {
    const r = await read('empty', {}, '?stray=1');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });
});

describe('wrap: raw answers', () => {
  it('answer as they are: body, content type and status from the result, no envelope, no warning', async () => {
    const r = await read('raw', {}, '?stray=1');
    expect(r.status).toBe(200);
    expect(r.text).toBe('-----BEGIN X-----\n');
    expect(r.headers.get('content-type')).toBe('application/x-pem-file');
    const bytes = await app.request('http://localhost/v1/edge/answer/raw-created', { headers: { 'x-svc-token': svc.root } });
    expect(bytes.status).toBe(201);
    expect(new Uint8Array(await bytes.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("take the path's one declared media type when the result names none", async () => {
    const r = await call(app, 'GET', '/v1/edge/pem', { token: svc.root });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pem-certificate-chain');
    expect(r.text).toBe('chain');
  });

  it('are a fault (500, nothing said) when neither the result nor a single declared type names the content type', async () => {
    for (const path of ['/v1/edge/either', '/v1/edge/untyped']) {
      const r = await call(app, 'GET', path, { token: svc.root });
      expect(r.status, path).toBe(500);
      expect(r.json).toEqual({ errors: ['internal error'] });
    }
  });
});

describe('wrap: response wrapping', () => {
  it('keeps an answer with data under a wrapping token and answers its wrap_info alone', async () => {
    const r = await read('data', wrapTtl);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ data: null, auth: null, lease_id: '' });
    const info = r.json!.wrap_info;
    expect(info).toMatchObject({ ttl: 60, creation_path: 'edge/answer/data', token: expect.any(String), accessor: expect.any(String) });
    expect(Date.parse(info.creation_time)).not.toBeNaN();
    expect(JSON.stringify(r.json)).not.toContain('value');
  });

  it('unwraps, once, to the envelope the caller would have got', async () => {
    const r = await read('data', wrapTtl, '?stray=1');
    const token = r.json!.wrap_info.token as string;
    const first = await unwrap(token);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      request_id: r.json!.request_id,
      data: { secret: 'value' },
      warnings: ['Endpoint ignored these unrecognized parameters: [stray]'],
      wrap_info: null,
    });
    const again = await unwrap(token);
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.text).not.toContain('value');
  });

  it('takes the TTL from X-Svc-Wrap-TTL too, as a duration', async () => {
    const r = await read('data', { 'x-svc-wrap-ttl': '5m' });
    expect(r.json!.wrap_info.ttl).toBe(300);
  });

  it("wraps an auth answer and names the issued token's accessor as wrapped_accessor", async () => {
    const r = await read('auth', wrapTtl);
    expect(r.json!.auth).toBeNull();
    expect(r.json!.wrap_info.wrapped_accessor).toBe('issued-accessor');
    expect((await unwrap(r.json!.wrap_info.token as string)).json!.auth).toMatchObject({ client_token: 'issued-token' });
  });

  it('answers 200 for a wrapped answer whatever status the handler chose', async () => {
    const r = await read('created', wrapTtl);
    expect(r.status).toBe(200);
    expect(r.json!.wrap_info).not.toBeNull();
  });

  it('puts no data at the top level of a wrapped answer', async () => {
    const r = await read('top', wrapTtl);
    expect(r.json).not.toHaveProperty('version');
    expect(r.json!.wrap_info).not.toBeNull();
  });

  it('never wraps a HEAD: no wrapping token is made for an answer nobody reads', async () => {
    const before = await tokenCount(svc);
    const r = await call(app, 'HEAD', '/v1/edge/answer/data', { token: svc.root, headers: wrapTtl });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect(await tokenCount(svc)).toBe(before);
  });

  it('never wraps an empty, a raw, a warnings-only or a lease-only answer', async () => {
    const before = await tokenCount(svc);
    expect((await read('empty', wrapTtl)).status).toBe(204);
    const raw = await read('raw', wrapTtl);
    expect(raw.text).toBe('-----BEGIN X-----\n');
    expect((await read('warnings', wrapTtl)).json).toMatchObject({ wrap_info: null, warnings: ['careful'] });
    expect((await read('lease', wrapTtl)).json).toMatchObject({ wrap_info: null, lease_id: 'edge/x/1' });
    expect(await tokenCount(svc)).toBe(before);
  });

  it('never wraps an error', async () => {
    const r = await call(app, 'GET', '/v1/edge/untyped', { token: svc.root, headers: wrapTtl });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ errors: ['internal error'] });
  });
});
