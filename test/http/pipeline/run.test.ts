/**
 * run (lib/http/pipeline/run.ts), the pipeline's fourth step: the handler. A wrap TTL the request
 * asks for is checked before anything; the request record goes to the audit log before the
 * handler acts (no device takes it: a 500 and nothing runs); then the handler gets the request as
 * its declaration promises (lib/http/path.ts `Req`): the coerced data, the operation, its mount
 * and the mount's partition, the path under the mount, the request id, the caller, and only on
 * the paths that declare them the raw body or the whole input. Driven through a minimal
 * Vault-style app with test-only paths on a real test service's deps, with a file audit device.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Auditor } from '../../../lib/audit/auditor';
import { fileDevice } from '../../../lib/audit/devices';
import type { Deps } from '../../../lib/deps';
import { f } from '../../../lib/http/fields';
import { definePath, type Req, type RouteSet } from '../../../lib/http/path';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-run-'));
const auditFile = join(dir, 'audit.log');
const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;
const ran: Req[] = [];
/** The audit records in the file when the handler ran. */
let auditWhenRun: { type: string; request: { id: string } }[] = [];

const readAudit = () =>
  readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; request: { id: string } });

const paths = [
  definePath({
    pattern: 'items/:name',
    fields: { name: f.pathParam(), count: f.int() },
    operations: {
      read: async (req) => {
        ran.push(req);
        return { data: { name: req.data.name } };
      },
      write: async (req) => {
        auditWhenRun = readAudit();
        ran.push(req);
        await req.part.put(`item/${req.data.name}`, { count: req.data.count ?? 0 });
      },
      list: async (req) => {
        ran.push(req);
        return { data: { keys: [] } };
      },
    },
    help: 'items',
  }),
  definePath({
    pattern: 'blob/:name',
    fields: { name: f.pathParam() },
    rawBody: true,
    operations: { write: async (req) => void ran.push(req) },
    help: 'a write that takes its body raw',
  }),
  definePath({
    pattern: 'anything',
    fields: { format: f.string() },
    takesArbitraryInput: true,
    operations: { write: async (req) => void ran.push(req) },
    help: 'a path that takes the whole input',
  }),
  definePath({
    pattern: 'open',
    fields: {},
    unauthenticated: ['read'],
    operations: { read: async (req) => void ran.push(req) },
    help: 'no token needed',
  }),
  definePath({
    pattern: 'lease-first/:name',
    fields: { name: f.pathParam() },
    operations: {
      write: async (req) => {
        const lease = await req.secrets.grant({ revoke: { user: req.data.name }, ttl: 60 });
        return { data: { lease_id: lease.lease_id, owner: lease.owner, mount: lease.mount, engine: lease.engine } };
      },
    },
    help: 'a handler that leases before it acts (req.secrets)',
  }),
];

const routes: RouteSet[] = [{ prefix: 'edge', mount, paths }];

beforeAll(async () => {
  svc = await createTestService();
  const deps: Deps = { ...svc.deps, audit: new Auditor([fileDevice(auditFile, { logRaw: true })], svc.deps.audit.hasher) };
  app = createVaultApi({ name: 'run-test', deps, routes });
});
beforeEach(() => {
  ran.length = 0;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run: before the handler', () => {
  it.each([
    ['soon', 'invalid wrap TTL header: expected a duration such as "5m" or a number of seconds'],
    ['0', 'invalid wrap TTL header: the wrap TTL must be at least 1s'],
    ['800h', 'invalid wrap TTL header: the wrap TTL must not exceed the system maximum of 2764800s'],
  ])('checks a wrap TTL of %s before anything: 400, and the handler never runs', async (ttl, message) => {
    for (const header of ['x-vault-wrap-ttl', 'x-svc-wrap-ttl']) {
      const r = await call(app, 'POST', '/v1/edge/items/wrapped', { token: svc.root, body: {}, headers: { [header]: ttl } });
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ errors: [message] });
    }
    expect(ran).toHaveLength(0);
    expect(await svc.deps.store.partition('edge-test/edge').get('item/wrapped')).toBeUndefined();
  });

  it('writes the request record to the audit log before the handler acts', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/a', { token: svc.root, body: { count: 1 } });
    expect(r.status).toBe(204);
    const id = r.headers.get('x-request-id');
    expect(auditWhenRun.filter((x) => x.request.id === id).map((x) => x.type)).toEqual(['request']);
    expect(
      readAudit()
        .filter((x) => x.request.id === id)
        .map((x) => x.type),
    ).toEqual(['request', 'response']);
  });

  it('runs nothing when no audit device takes the request record: 500', async () => {
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    const deps: Deps = { ...svc.deps, audit: new Auditor([fileDevice(blocked)], svc.deps.audit.hasher) };
    const closed = createVaultApi({ name: 'run-test', deps, routes });
    const r = await call(closed, 'POST', '/v1/edge/items/never', { token: svc.root, body: { count: 1 } });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ errors: ['the audit log could not record the request'] });
    expect(ran).toHaveLength(0);
    expect(await svc.deps.store.partition('edge-test/edge').get('item/never')).toBeUndefined();
  });
});

describe('run: the request the handler gets', () => {
  it('carries the data, operation, mount, path under the mount, request id, headers and deps', async () => {
    const r = await call(app, 'GET', '/v1/edge/items/a?count=3', { token: svc.root, headers: { 'x-custom': 'yes' } });
    const req = ran[0]!;
    expect(req.data).toEqual({ name: 'a', count: 3 });
    expect(req.op).toBe('read');
    expect(req.mount).toBe(mount);
    expect(req.path).toBe('items/a');
    expect(req.requestId).toBe(r.headers.get('x-request-id'));
    expect(req.requestId).toBe(r.json!.request_id);
    expect(req.headers.get('x-custom')).toBe('yes');
    expect(req.deps.store).toBe(svc.deps.store);
  });

  it("works in the mount's own partition of the store", async () => {
    await call(app, 'POST', '/v1/edge/items/stored', { token: svc.root, body: { count: 7 } });
    expect(ran[0]!.part.name).toBe('edge-test/edge');
    expect((await svc.deps.store.partition('edge-test/edge').get('item/stored'))?.value).toEqual({ count: 7 });
  });

  it("sees a LIST's path with its trailing slash, as requested", async () => {
    await call(app, 'LIST', '/v1/edge/items/a/', { token: svc.root });
    expect(ran[0]!.op).toBe('list');
    expect(ran[0]!.path).toBe('items/a/');
  });

  it('carries the caller: principal and token', async () => {
    const t = await tokenWith(svc, ['root']);
    await call(app, 'GET', '/v1/edge/items/a', { token: t });
    expect(ran[0]!.token).toBe(t);
    expect(ran[0]!.principal).toMatchObject({ policies: ['root'], accessor: expect.any(String) });
  });

  it('carries no principal on an unauthenticated operation, and no token when none was sent', async () => {
    await call(app, 'GET', '/v1/edge/open');
    expect(ran[0]).not.toHaveProperty('principal');
    expect(ran[0]).not.toHaveProperty('token');
  });

  it("carries the caller's address when the front door knows it", async () => {
    await app.request(
      'http://localhost/v1/edge/items/a',
      { headers: { 'x-svc-token': svc.root } },
      { incoming: { socket: { remoteAddress: '192.0.2.77' } } },
    );
    expect(ran[0]!.remoteAddress).toBe('192.0.2.77');
    await call(app, 'GET', '/v1/edge/items/a', { token: svc.root });
    expect(ran[1]).not.toHaveProperty('remoteAddress');
  });

  it('marks a read asked by HEAD, and only that', async () => {
    await call(app, 'HEAD', '/v1/edge/items/a', { token: svc.root });
    await call(app, 'GET', '/v1/edge/items/a', { token: svc.root });
    expect(ran[0]!.head).toBe(true);
    expect(ran[1]).not.toHaveProperty('head');
  });

  it('carries the raw body and its content type on a rawBody path only', async () => {
    await call(app, 'PUT', '/v1/edge/blob/x', { token: svc.root, raw: 'raw bytes', headers: { 'content-type': 'text/x-test' } });
    expect(Buffer.from(ran[0]!.body!).toString()).toBe('raw bytes');
    expect(ran[0]!.contentType).toBe('text/x-test');
    // Bytes (a string body would be labelled text/plain by the Request itself).
    await call(app, 'PUT', '/v1/edge/blob/y', { token: svc.root, raw: new TextEncoder().encode('no type') });
    expect(ran[1]).not.toHaveProperty('contentType');
    await call(app, 'POST', '/v1/edge/items/z', { token: svc.root, body: { count: 1 } });
    expect(ran[2]).not.toHaveProperty('body');
    expect(ran[2]).not.toHaveProperty('contentType');
  });

  it('carries the whole input, declared or not, on a path that takes arbitrary input only', async () => {
    await call(app, 'POST', '/v1/edge/anything', { token: svc.root, body: { format: 'der', other: [1, 2] } });
    expect(ran[0]!.input).toEqual({ format: 'der', other: [1, 2] });
    expect(ran[0]!.data).toEqual({ format: 'der' });
    await call(app, 'POST', '/v1/edge/items/z', { token: svc.root, body: { count: 1, other: 2 } });
    expect(ran[1]).not.toHaveProperty('input');
  });

  it("gives it req.secrets: leases under the request's mount and path, owned by the caller", async () => {
    const t = await tokenWith(svc, ['root']);
    const accessor = (await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: t })).json!.data.accessor as string;
    const r = await call(app, 'POST', '/v1/edge/lease-first/u1', { token: t, body: {} });
    expect(r.json!.data).toMatchObject({ owner: accessor, mount: 'edge', engine: 'edge-test' });
    expect(r.json!.data.lease_id).toMatch(/^edge\/lease-first\/u1\/[A-Za-z0-9_-]+$/);
  });

  it('answers 204 when the handler returns nothing', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/void', { token: svc.root, body: {} });
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
  });
});
