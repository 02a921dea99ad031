/**
 * validate (lib/http/pipeline/validate.ts), the pipeline's third step: once the caller is
 * authorised, the input errors decode kept are thrown (400), and otherwise the handler's data is
 * the coerced fields, with a warning naming the parameters no field takes, unless the path takes
 * arbitrary input. Driven through a minimal Vault-style app with test-only paths on a real test
 * service's deps.
 */
import type { Hono } from 'hono';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { f } from '../../../lib/http/fields';
import { definePath, type Req } from '../../../lib/http/path';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;
const ran: Req[] = [];

const echo = async (req: Req) => {
  ran.push(req);
  return { data: { data: req.data } };
};

const paths = [
  definePath({
    pattern: 'items/:name',
    fields: { name: f.pathParam(), owner: f.string({ required: true }), count: f.int({ min: 1 }), mode: f.string({ default: 'auto' }) },
    operations: { write: echo, read: echo },
    help: 'an item with declared fields',
  }),
  definePath({
    pattern: 'anything',
    fields: { format: f.string() },
    takesArbitraryInput: true,
    operations: { write: async (req) => (ran.push(req), { data: { input: req.input ?? null, data: req.data } }) },
    help: 'a path that takes the whole input',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  app = createVaultApi({ name: 'validate-test', deps: svc.deps, routes: [{ prefix: 'edge', mount, paths }] });
});
beforeEach(() => {
  ran.length = 0;
});

describe('validate: the kept errors, after authorization', () => {
  it('answers an authorised caller 400 with every field error, and the handler never runs', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { count: 0 } });
    expect(r.status).toBe(400);
    expect(r.json!.errors).toHaveLength(1);
    expect(r.json!.errors[0]).toMatch(/^missing required field "owner"; field "count": /);
    expect(ran).toHaveLength(0);
  });

  it('answers a malformed body 400 for an authorised caller only (403 for the others, who learn nothing)', async () => {
    const reader = await tokenWith(svc, ['default']);
    const bad = { raw: 'not json, not a form', headers: { 'content-type': 'application/json' } };
    expect((await call(app, 'POST', '/v1/edge/items/a', { ...bad, token: reader })).status).toBe(403);
    const r = await call(app, 'POST', '/v1/edge/items/a', { ...bad, token: svc.root });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ errors: ['failed to parse JSON input: the request body is not valid JSON'] });
  });

  it('refuses a body that is JSON but not an object', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: ['owner'] });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ errors: ['the request body must be a JSON object'] });
  });
});

describe('validate: the handler data', () => {
  it('is the coerced fields only, defaults filled in, the path parameter from the path', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { owner: 'ops', count: '2', stray: 1 } });
    expect(r.status).toBe(200);
    expect(ran[0]!.data).toEqual({ name: 'a', owner: 'ops', count: 2, mode: 'auto' });
    expect(ran[0]!.input).toBeUndefined();
  });

  it('keeps the path parameter from the path when the body names it too', async () => {
    await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { owner: 'ops', name: 'other' } });
    expect(ran[0]!.data.name).toBe('a');
  });
});

describe('validate: the ignored-parameter warning', () => {
  it('names the parameters no field takes, sorted, in the answer', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { owner: 'ops', zeta: 1, alpha: 2 } });
    expect(r.json!.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [alpha zeta]']);
  });

  it('counts a path parameter sent in the body as ignored', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { owner: 'ops', name: 'other' } });
    expect(r.json!.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [name]']);
  });

  it("names a read's unknown query parameters too", async () => {
    const r = await call(app, 'GET', '/v1/edge/items/a?verbose=1', { token: svc.root });
    expect(r.json!.warnings).toEqual(['Endpoint ignored these unrecognized parameters: [verbose]']);
  });

  it('says nothing when every parameter is taken', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { owner: 'ops', count: 1 } });
    expect(r.json!.warnings).toBeNull();
  });

  it('says nothing on a path that takes arbitrary input, whose handler gets the whole input as sent', async () => {
    const r = await call(app, 'POST', '/v1/edge/anything', { token: svc.root, body: { format: 'pem', any: { thing: [1] } } });
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toBeNull();
    expect(r.json!.data).toEqual({ input: { format: 'pem', any: { thing: [1] } }, data: { format: 'pem' } });
  });
});
