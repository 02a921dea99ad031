/**
 * decode (lib/http/pipeline/decode.ts), the pipeline's first step: the operation the method asks
 * for (LIST, or GET with `?list=true` as Vault parses booleans), 405 for one the path lacks (and
 * for a HEAD on a read that acts), the canonical path (names declared foldCase lower-cased), the
 * input (a write's body as JSON or a form, or bytes on a rawBody path; a read's query), and the
 * fields coerced; an error in the input is kept for validate, after authorization. Driven through
 * a minimal Vault-style app (createVaultApi) with test-only paths on a real test service's deps,
 * with a file audit device so what decode hands the audit record can be read back.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auditor } from '../../../lib/audit/auditor';
import { fileDevice } from '../../../lib/audit/devices';
import { f } from '../../../lib/http/fields';
import { definePath, type Req } from '../../../lib/http/path';
import { operationOf } from '../../../lib/http/pipeline/decode';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, type TestService } from '../../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-decode-'));
const auditFile = join(dir, 'audit.log');
const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;
/** Every request a handler got, in order. */
const ran: Req[] = [];

const echo = async (req: Req) => {
  ran.push(req);
  return { data: { op: req.op, path: req.path, data: req.data } };
};

const paths = [
  definePath({
    pattern: 'things',
    fields: {},
    operations: { list: echo },
    help: 'a folder that lists',
  }),
  definePath({
    pattern: 'things/:name',
    fields: {
      name: f.pathParam({ foldCase: true }),
      owner: f.string({ required: true }),
      ttl: f.duration(),
      tags: f.list(),
      count: f.int(),
    },
    operations: { read: echo, write: echo, delete: echo },
    help: 'an item with typed fields',
  }),
  definePath({
    pattern: 'rotate',
    fields: {},
    readActs: true,
    operations: { read: echo },
    help: 'a read that acts',
  }),
  definePath({
    pattern: 'blob/:name',
    fields: { name: f.pathParam() },
    rawBody: true,
    operations: { write: echo },
    help: 'a write that takes its body raw',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  const deps = { ...svc.deps, audit: new Auditor([fileDevice(auditFile, { logRaw: true })], svc.deps.audit.hasher) };
  app = createVaultApi({ name: 'decode-test', deps, routes: [{ prefix: 'edge', mount, paths }] });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The audit request record of the answer `r` (by its request id). */
function auditedRequest(r: { headers: Headers }): Record<string, unknown> {
  const id = r.headers.get('x-request-id');
  const recs = readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; request: Record<string, unknown> });
  const rec = recs.find((x) => x.type === 'request' && x.request.id === id);
  if (!rec) throw new Error(`no request record for ${id}`);
  return rec.request;
}

describe('operationOf', () => {
  it.each([
    ['LIST', '', 'list'],
    ['GET', '', 'read'],
    ['HEAD', '', 'read'],
    ['GET', '?list=true', 'list'],
    ['GET', '?list=True', 'list'],
    ['GET', '?list=1', 'list'],
    ['GET', '?list=t', 'list'],
    ['HEAD', '?list=true', 'list'],
    ['GET', '?list=false', 'read'],
    ['GET', '?list=', 'read'],
    ['GET', '?list=yes', 'read'],
    ['POST', '', 'write'],
    ['PUT', '', 'write'],
    ['POST', '?list=true', 'write'],
    ['DELETE', '', 'delete'],
    ['PATCH', '', 'patch'],
    ['OPTIONS', '', undefined],
  ])('%s %s asks for %s', (method, query, op) => {
    expect(operationOf(method, new URL(`http://localhost/v1/edge/things${query}`))).toBe(op);
  });
});

describe('decode: the operation', () => {
  it('answers 405 for a method the path has no handler for, naming the method', async () => {
    const r = await call(app, 'DELETE', '/v1/edge/things', { token: svc.root });
    expect(r.status).toBe(405);
    expect(r.json).toEqual({ errors: [expect.stringMatching(/^unsupported operation: DELETE on "edge\/things"; it takes /)] });
    expect((await call(app, 'PATCH', '/v1/edge/things/a', { token: svc.root })).status).toBe(405);
    expect((await call(app, 'GET', '/v1/edge/things', { token: svc.root })).status).toBe(405);
  });

  it('answers 405 before authorization: a caller without a token learns the method is not there', async () => {
    expect((await call(app, 'DELETE', '/v1/edge/things')).status).toBe(405);
  });

  it('runs the list on LIST and on GET ?list=true (True, as hvac sends it)', async () => {
    for (const [method, path] of [
      ['LIST', '/v1/edge/things/'],
      ['LIST', '/v1/edge/things'],
      ['GET', '/v1/edge/things?list=true'],
      ['GET', '/v1/edge/things/?list=True'],
    ] as const) {
      const r = await call(app, method, path, { token: svc.root });
      expect(r.status, `${method} ${path}`).toBe(200);
      expect(r.json!.data.op).toBe('list');
    }
  });

  it('records a GET ?list=true as a list in the audit log, even when the path has no list (405)', async () => {
    const r = await call(app, 'GET', '/v1/edge/rotate?list=true', { token: svc.root });
    expect(r.status).toBe(405);
    expect(auditedRequest(r).operation).toBe('list');
  });

  it('refuses a HEAD on a read that acts (405), and the read never runs; a GET runs it', async () => {
    ran.length = 0;
    const head = await call(app, 'HEAD', '/v1/edge/rotate', { token: svc.root });
    expect(head.status).toBe(405);
    expect(ran).toHaveLength(0);
    expect((await call(app, 'GET', '/v1/edge/rotate', { token: svc.root })).status).toBe(200);
    expect(ran).toHaveLength(1);
  });

  it('runs a HEAD on an ordinary read as the read', async () => {
    ran.length = 0;
    expect((await call(app, 'HEAD', '/v1/edge/things/a', { token: svc.root })).status).toBe(200);
    expect(ran.map((req) => req.op)).toEqual(['read']);
  });
});

describe('decode: the canonical path', () => {
  it('lower-cases a path parameter declared foldCase, in the data and in the path the handler sees', async () => {
    const r = await call(app, 'GET', '/v1/edge/things/MixedCase', { token: svc.root });
    expect(r.json!.data).toMatchObject({ path: 'things/mixedcase', data: { name: 'mixedcase' } });
  });

  it('leaves a parameter not declared foldCase as sent', async () => {
    ran.length = 0;
    await call(app, 'PUT', '/v1/edge/blob/MixedCase', { token: svc.root, raw: 'x' });
    expect(ran[0]!.data).toEqual({ name: 'MixedCase' });
    expect(ran[0]!.path).toBe('blob/MixedCase');
  });
});

describe('decode: the input', () => {
  it("takes a write's JSON body and coerces each field as the handler will use it", async () => {
    const r = await call(app, 'POST', '/v1/edge/things/a', {
      token: svc.root,
      body: { owner: 'ops', ttl: '1h', tags: 'x, y,,z', count: '7' },
    });
    expect(r.status).toBe(200);
    expect(r.json!.data.data).toEqual({ name: 'a', owner: 'ops', ttl: 3600, tags: ['x', 'y', 'z'], count: 7 });
  });

  it('takes a form body, and a body that opens like JSON as JSON whatever its label (curl --data)', async () => {
    const form = await call(app, 'POST', '/v1/edge/things/a', {
      token: svc.root,
      raw: 'owner=ops&ttl=90&tags=a&tags=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.json!.data.data).toEqual({ name: 'a', owner: 'ops', ttl: 90, tags: ['a', 'b'] });
    const labelled = await call(app, 'POST', '/v1/edge/things/a', {
      token: svc.root,
      raw: '{"owner":"ops","count":3}',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(labelled.json!.data.data).toEqual({ name: 'a', owner: 'ops', count: 3 });
  });

  it("takes a read's and a delete's query as input, a repeated parameter as a list", async () => {
    const read = await call(app, 'GET', '/v1/edge/things/a?ttl=2m&tags=p&tags=q', { token: svc.root });
    expect(read.json!.data.data).toEqual({ name: 'a', ttl: 120, tags: ['p', 'q'] });
    const del = await call(app, 'DELETE', '/v1/edge/things/a?count=4', { token: svc.root });
    expect(del.json!.data.data).toEqual({ name: 'a', count: 4 });
  });

  it('requires a required field of writes only', async () => {
    expect((await call(app, 'GET', '/v1/edge/things/a', { token: svc.root })).status).toBe(200);
    const write = await call(app, 'POST', '/v1/edge/things/a', { token: svc.root, body: { ttl: 5 } });
    expect(write.status).toBe(400);
    expect(write.json).toEqual({ errors: ['missing required field "owner"'] });
  });

  it('never takes the control parameters (list, pretty, help) as input', async () => {
    const r = await call(app, 'GET', '/v1/edge/things/a?pretty&help=1', { token: svc.root });
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toBeNull();
    expect(r.json!.data.data).toEqual({ name: 'a' });
  });

  it('hands a rawBody write its bytes and content type unparsed, and records them as the raw body', async () => {
    ran.length = 0;
    const bytes = new Uint8Array([0x7b, 0x00, 0xff, 0x30]);
    const r = await call(app, 'POST', '/v1/edge/blob/one?ignored=1', {
      token: svc.root,
      raw: bytes,
      headers: { 'content-type': 'application/ocsp-request' },
    });
    expect(r.status).toBe(200);
    expect(new Uint8Array(ran[0]!.body!)).toEqual(bytes);
    expect(ran[0]!.contentType).toBe('application/ocsp-request');
    expect(ran[0]!.data).toEqual({ name: 'one' });
    expect(auditedRequest(r).data).toMatchObject({ http_content_type: 'application/ocsp-request' });
    expect(auditedRequest(r).data).toHaveProperty('http_raw_body');
  });

  it('records the input as sent, before coercion', async () => {
    const r = await call(app, 'POST', '/v1/edge/things/a', { token: svc.root, body: { owner: 'ops', ttl: '1h', extra: true } });
    expect(auditedRequest(r).data).toEqual({ owner: 'ops', ttl: '1h', extra: true });
  });
});

describe('decode keeps input errors for validate', () => {
  it("keeps a malformed body's error, so an unauthorised caller gets 403 not 400", async () => {
    const bad = { raw: '{"owner": ', headers: { 'content-type': 'application/json' } };
    const anonymous = await call(app, 'POST', '/v1/edge/things/a', bad);
    expect(anonymous.status).toBe(403);
    expect(anonymous.text).not.toContain('JSON');
    const root = await call(app, 'POST', '/v1/edge/things/a', { ...bad, token: svc.root });
    expect(root.status).toBe(400);
    expect(root.json).toEqual({ errors: ['failed to parse JSON input: the request body is not valid JSON'] });
  });

  it("keeps a field's error the same way (a value of the wrong type)", async () => {
    expect((await call(app, 'POST', '/v1/edge/things/a', { body: { owner: 'ops', count: 'many' } })).status).toBe(403);
    const root = await call(app, 'POST', '/v1/edge/things/a', { token: svc.root, body: { owner: 'ops', count: 'many' } });
    expect(root.status).toBe(400);
    expect(root.json!.errors[0]).toMatch(/^field "count": /);
  });

  it('keeps an over-deep body the same way', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 70; i++) deep = { d: deep };
    expect((await call(app, 'POST', '/v1/edge/things/a', { body: { owner: 'ops', deep } })).status).toBe(403);
    expect((await call(app, 'POST', '/v1/edge/things/a', { token: svc.root, body: { owner: 'ops', deep } })).status).toBe(400);
  });
});
