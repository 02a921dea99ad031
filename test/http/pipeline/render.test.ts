/**
 * render (lib/http/pipeline/render.ts), the last step: the answer on the wire. Vault's envelope
 * (request_id, lease_id, renewable, lease_duration, data, wrap_info, warnings, auth) as JSON,
 * indented with `?pretty`; a raw body of its own type; 204 with no body. The result's headers go
 * on every kind of answer, names lower-cased; the edge's own x-request-id and the body's
 * content-type win over a result header of the same name. Driven through a minimal Vault-style
 * app with test-only paths on a real test service's deps.
 */
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { f } from '../../../lib/http/fields';
import { definePath, type Result } from '../../../lib/http/path';
import { responseHeaders } from '../../../lib/http/pipeline/render';
import { createVaultApi } from '../../../lib/http/vault-api';
import { createTestService, type TestService } from '../../helpers/service';

const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;

/** Headers a result sets, including names the edge owns. */
const forging = { 'Replay-Nonce': 'n-1', 'X-Request-Id': 'forged', 'Content-Type': 'text/evil' };

const results: Record<string, Result> = {
  envelope: {
    data: { name: 'web', ttl: 60 },
    lease: { id: 'edge/creds/web/abc', duration: 60, renewable: true },
    warnings: ['heads up'],
    headers: forging,
  },
  auth: { auth: { client_token: 'issued', policies: ['p'] } },
  raw: { raw: { body: new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]), contentType: 'application/pkix-cert' }, headers: forging },
  empty: { headers: forging },
};

const paths = [
  definePath({
    pattern: 'answer/:kind',
    fields: { kind: f.pathParam() },
    operations: { read: async (req) => results[req.data.kind] },
    help: 'an answer of each kind, with headers',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  app = createVaultApi({ name: 'render-test', deps: svc.deps, routes: [{ prefix: 'edge', mount, paths }] });
});

const get = (kind: string, query = '', headers: Record<string, string> = {}) =>
  app.request(`http://localhost/v1/edge/answer/${kind}${query}`, { headers: { 'x-svc-token': svc.root, ...headers } });

describe('render: the envelope', () => {
  it('is the whole envelope as JSON, every key present', async () => {
    const r = await get('envelope');
    expect(r.status).toBe(200);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toEqual({
      request_id: r.headers.get('x-request-id'),
      lease_id: 'edge/creds/web/abc',
      renewable: true,
      lease_duration: 60,
      data: { name: 'web', ttl: 60 },
      wrap_info: null,
      warnings: ['heads up'],
      auth: null,
    });
  });

  it('says null for what the answer lacks', async () => {
    const body = (await (await get('auth')).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, data: null, warnings: null, wrap_info: null });
    expect(body.auth).toEqual({ client_token: 'issued', policies: ['p'] });
  });

  it('is compact JSON, or indented by four spaces with a final newline with ?pretty', async () => {
    const compact = await (await get('auth')).text();
    expect(compact).not.toContain('\n');
    const r = await get('auth', '?pretty');
    const text = await r.text();
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 4) + '\n');
    expect(text).toContain('\n    "request_id": ');
  });

  it('is labelled application/json, whatever the result says', async () => {
    expect((await get('envelope')).headers.get('content-type')).toBe('application/json');
  });
});

describe('render: headers', () => {
  it("carry the result's headers on an envelope answer", async () => {
    expect((await get('envelope')).headers.get('replay-nonce')).toBe('n-1');
  });

  it('let x-request-id win over a result header of the same name: one value, the body request id', async () => {
    const r = await get('envelope');
    const body = (await r.json()) as { request_id: string };
    expect(r.headers.get('x-request-id')).toBe(body.request_id);
    expect(r.headers.get('x-request-id')).not.toContain('forged');
  });

  it("carry the result's headers on a raw answer, whose own content type wins", async () => {
    const r = await get('raw');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pkix-cert');
    expect(r.headers.get('replay-nonce')).toBe('n-1');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x05]));
  });

  it("carry the result's headers on an empty answer, with no body; the request id still the edge's", async () => {
    const r = await get('empty');
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
    expect(r.headers.get('replay-nonce')).toBe('n-1');
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // No body, so no type of the edge's: the result's stands.
    expect(r.headers.get('content-type')).toBe('text/evil');
  });
});

describe('responseHeaders', () => {
  it("lower-cases the result's header names, then sets the edge's own, which win", () => {
    expect(
      responseHeaders({ headers: { 'Replay-Nonce': 'n', 'X-REQUEST-ID': 'forged', 'content-TYPE': 'x/y' } }, 'id-1', 'application/json'),
    ).toEqual({ 'replay-nonce': 'n', 'x-request-id': 'id-1', 'content-type': 'application/json' });
  });

  it("keeps the result's content type when the answer has no body type of its own", () => {
    expect(responseHeaders({ headers: { 'Content-Type': 'x/y' } }, 'id-1')).toEqual({ 'content-type': 'x/y', 'x-request-id': 'id-1' });
    expect(responseHeaders({}, 'id-2')).toEqual({ 'x-request-id': 'id-2' });
  });
});
