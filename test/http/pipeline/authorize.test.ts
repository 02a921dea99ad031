/**
 * authorize (lib/http/pipeline/authorize.ts), the pipeline's second step: who calls, and may
 * they. The token from X-Svc-Token, X-Vault-Token or Bearer; a write asked as `create` or
 * `update` by the path's existence check; the canonical path (a LIST with its trailing slash);
 * sudo where declared; the parameters as the handler will use them (coerced); a read that answers
 * a listing also checked against the listing; the caller's address. Unauthenticated operations
 * skip it. Driven through a minimal Vault-style app on a real test service's deps: the real
 * authorizer and policies, behind a recorder of what it was asked, and a file audit device.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Auditor } from '../../../lib/audit/auditor';
import { fileDevice } from '../../../lib/audit/devices';
import type { AccessRequest, Principal } from '../../../lib/http/auth';
import { f } from '../../../lib/http/fields';
import { definePath, type Req } from '../../../lib/http/path';
import { accessPath } from '../../../lib/http/pipeline/authorize';
import { createVaultApi } from '../../../lib/http/vault-api';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-authorize-'));
const auditFile = join(dir, 'audit.log');
const mount = { path: 'edge', type: 'edge-test', defaultLeaseTtl: 0, maxLeaseTtl: 0 };
let svc: TestService;
let app: Hono;
/** What the authorizer was asked, and what the handlers got, in order. */
const asked: AccessRequest[] = [];
const ran: Req[] = [];

const echo = async (req: Req) => {
  ran.push(req);
  return { data: { ok: true } };
};

const paths = [
  definePath({
    pattern: 'items/:name',
    fields: { name: f.pathParam({ foldCase: true }), ttl: f.duration(), tags: f.list() },
    exists: async ({ params, part }) => (await part.get(`item/${params.name}`)) !== undefined,
    operations: {
      read: echo,
      write: async (req) => {
        ran.push(req);
        await req.part.put(`item/${req.data.name}`, { ttl: req.data.ttl ?? 0 });
      },
    },
    help: 'items with an existence check',
  }),
  definePath({
    // The existence check answers `exists` of the name; the write then finds the opposite (an item
    // created or deleted between the check and the write) and says so, as a conditional write does.
    pattern: 'racy/:exists',
    fields: { exists: f.pathParam() },
    exists: async ({ params }) => params.exists === 'yes',
    operations: {
      write: async (req) => {
        await req.existence!.confirm(req.data.exists !== 'yes');
        ran.push(req);
      },
    },
    help: 'a write whose item changes between its existence check and its write',
  }),
  definePath({
    pattern: 'plain/:name',
    fields: { name: f.pathParam() },
    operations: { write: echo },
    help: 'a write with no existence check',
  }),
  definePath({
    pattern: 'names',
    fields: {},
    readLists: true,
    operations: { read: echo, list: echo },
    help: 'a read that answers the listing',
  }),
  definePath({
    pattern: 'open',
    fields: {},
    unauthenticated: ['read'],
    operations: { read: echo, write: echo },
    help: 'a read without a token',
  }),
  definePath({
    pattern: 'admin',
    fields: {},
    sudo: ['write'],
    operations: { read: echo, write: echo },
    help: 'a write that needs sudo',
  }),
];

beforeAll(async () => {
  svc = await createTestService();
  const real = svc.deps.authorizer;
  const deps = {
    ...svc.deps,
    audit: new Auditor([fileDevice(auditFile, { logRaw: true })], svc.deps.audit.hasher),
    authorizer: {
      // The operation as decided (a write's existence check may still be running when asked).
      authorize: async (req: AccessRequest) => {
        asked.push({ ...req, op: await req.op });
        return real.authorize(req);
      },
      recheck: async (principal: Principal, req: AccessRequest) => {
        asked.push({ ...req, op: await req.op });
        return real.recheck(principal, req);
      },
    },
  };
  app = createVaultApi({ name: 'authorize-test', deps, routes: [{ prefix: 'edge', mount, paths }] });
});
beforeEach(() => {
  asked.length = 0;
  ran.length = 0;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function policy(name: string, hcl: string): Promise<string> {
  const r = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: hcl } });
  if (r.status !== 204) throw new Error(`policy ${name}: ${r.text}`);
  return tokenWith(svc, [name]);
}

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The audit request record of the answer `r` (by its request id). */
function audited(type: 'request' | 'response', r: { headers: Headers }): Rec {
  const id = r.headers.get('x-request-id');
  const recs = readFileSync(auditFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
  const rec = recs.find((x) => x.type === type && x.request.id === id);
  if (!rec) throw new Error(`no ${type} record for ${id}`);
  return rec;
}
const auditedRequest = (r: { headers: Headers }) => audited('request', r);
const auditedResponse = (r: { headers: Headers }) => audited('response', r);

describe('accessPath', () => {
  it('gives a LIST its trailing slash and every other operation none', () => {
    expect(accessPath('pki/roles', 'list')).toBe('pki/roles/');
    expect(accessPath('pki/roles/', 'list')).toBe('pki/roles/');
    expect(accessPath('pki/roles/', 'read')).toBe('pki/roles');
    expect(accessPath('pki/roles//', 'write')).toBe('pki/roles');
  });
});

describe('authorize: create or update', () => {
  it('asks create for a new item and update for an existing one', async () => {
    expect((await call(app, 'POST', '/v1/edge/items/fresh', { token: svc.root, body: {} })).status).toBe(204);
    expect((await call(app, 'PUT', '/v1/edge/items/fresh', { token: svc.root, body: {} })).status).toBe(204);
    expect(asked.map((a) => a.op)).toEqual(['create', 'update']);
  });

  it('lets a policy with create alone make an item but not change it, and update alone the reverse', async () => {
    const creator = await policy('edge-create', 'path "edge/items/*" { capabilities = ["create"] }');
    const updater = await policy('edge-update', 'path "edge/items/*" { capabilities = ["update"] }');
    expect((await call(app, 'POST', '/v1/edge/items/made', { token: updater, body: {} })).status).toBe(403);
    expect((await call(app, 'POST', '/v1/edge/items/made', { token: creator, body: {} })).status).toBe(204);
    expect((await call(app, 'POST', '/v1/edge/items/made', { token: creator, body: {} })).status).toBe(403);
    expect((await call(app, 'POST', '/v1/edge/items/made', { token: updater, body: {} })).status).toBe(204);
  });

  it('checks existence on the canonical name (a new spelling of an existing item is an update)', async () => {
    await call(app, 'POST', '/v1/edge/items/cased', { token: svc.root, body: {} });
    asked.length = 0;
    await call(app, 'POST', '/v1/edge/items/CASED', { token: svc.root, body: {} });
    expect(asked[0]).toMatchObject({ op: 'update', path: 'edge/items/cased' });
  });

  it('asks update for a write on a path with no existence check', async () => {
    await call(app, 'POST', '/v1/edge/plain/x', { token: svc.root, body: {} });
    expect(asked.map((a) => a.op)).toEqual(['update']);
  });

  it('records the operation as authorised, create or update, in the audit log', async () => {
    const made = await call(app, 'POST', '/v1/edge/items/audited', { token: svc.root, body: {} });
    const changed = await call(app, 'POST', '/v1/edge/items/audited', { token: svc.root, body: {} });
    expect(auditedRequest(made).request.operation).toBe('create');
    expect(auditedRequest(changed).request.operation).toBe('update');
  });
});

describe('authorize: a write that finds its item changed', () => {
  it('is checked again as the other operation: create alone may not replace what appeared, update alone may not create what vanished', async () => {
    const creator = await policy('racy-create', 'path "edge/racy/*" { capabilities = ["create"] }');
    const updater = await policy('racy-update', 'path "edge/racy/*" { capabilities = ["update"] }');
    const appeared = await call(app, 'POST', '/v1/edge/racy/no', { token: creator, body: {} });
    expect(appeared.status).toBe(403);
    const vanished = await call(app, 'POST', '/v1/edge/racy/yes', { token: updater, body: {} });
    expect(vanished.status).toBe(403);
    expect(ran).toHaveLength(0);
    expect(asked.map((a) => a.op)).toEqual(['create', 'update', 'update', 'create']);
    // The request record names the operation it was let in as; the response the one refused.
    expect(auditedRequest(appeared).request.operation).toBe('create');
    expect(auditedResponse(appeared)).toMatchObject({ request: { operation: 'update' }, response: { status_code: 403 } });
    expect(auditedResponse(vanished)).toMatchObject({ request: { operation: 'create' }, response: { status_code: 403 } });
  });

  it('goes on when the policies allow the other operation too, recorded as it was done', async () => {
    const both = await policy('racy-both', 'path "edge/racy/*" { capabilities = ["create", "update"] }');
    const r = await call(app, 'POST', '/v1/edge/racy/no', { token: both, body: {} });
    expect(r.status).toBe(204);
    expect(ran).toHaveLength(1);
    expect(auditedResponse(r).request.operation).toBe('update');
  });

  it('is not offered to a handler whose path has no existence check, nor to a read', async () => {
    await call(app, 'POST', '/v1/edge/plain/x', { token: svc.root, body: {} });
    await call(app, 'GET', '/v1/edge/items/x', { token: svc.root });
    expect(ran.map((r) => r.existence)).toEqual([undefined, undefined]);
  });
});

describe('authorize: what the authorizer is asked', () => {
  it('asks on the canonical path: a LIST with its trailing slash, a read without, a foldCase name lower-cased', async () => {
    await call(app, 'LIST', '/v1/edge/names', { token: svc.root });
    await call(app, 'GET', '/v1/edge/names/?list=true', { token: svc.root });
    await call(app, 'GET', '/v1/edge/items/MiXed', { token: svc.root });
    expect(asked.map((a) => [a.op, a.path])).toEqual([
      ['list', 'edge/names/'],
      ['list', 'edge/names/'],
      ['read', 'edge/items/mixed'],
    ]);
  });

  it('asks for sudo on an operation declared sudo only', async () => {
    await call(app, 'POST', '/v1/edge/admin', { token: svc.root, body: {} });
    await call(app, 'GET', '/v1/edge/admin', { token: svc.root });
    expect(asked.map((a) => [a.op, a.sudo])).toEqual([
      ['update', true],
      ['read', false],
    ]);
    const plain = await policy('edge-admin', 'path "edge/admin" { capabilities = ["read", "update"] }');
    expect((await call(app, 'GET', '/v1/edge/admin', { token: plain })).status).toBe(200);
    expect((await call(app, 'POST', '/v1/edge/admin', { token: plain, body: {} })).status).toBe(403);
  });

  it('passes each parameter as the handler will use it: coerced, with its kind; one no field takes as sent', async () => {
    await call(app, 'POST', '/v1/edge/items/p', { token: svc.root, body: { ttl: '1h', tags: ' a, b,,', Extra: 'X' } });
    expect(asked[0]!.params).toEqual([
      { names: ['ttl'], value: 3600, kind: 'duration' },
      { names: ['tags'], value: ['a', 'b'], kind: 'list' },
      { names: ['extra'], value: 'X' },
    ]);
  });

  it('passes a value its field could not coerce as sent (the request is refused after, with 400)', async () => {
    const r = await call(app, 'POST', '/v1/edge/items/p', { token: svc.root, body: { ttl: 'soon' } });
    expect(r.status).toBe(400);
    expect(asked[0]!.params).toEqual([{ names: ['ttl'], value: 'soon' }]);
  });

  it('holds parameter constraints on the coerced values: a denied "1h" is denied when sent as 3600 or "60m"', async () => {
    const t = await policy(
      'edge-params',
      'path "edge/items/*" { capabilities = ["create", "update"] denied_parameters = { "ttl" = ["1h"] } }',
    );
    for (const ttl of [3600, '3600', '60m', '1h'])
      expect((await call(app, 'POST', '/v1/edge/items/q', { token: t, body: { ttl } })).status, String(ttl)).toBe(403);
    expect((await call(app, 'POST', '/v1/edge/items/q', { token: t, body: { ttl: '2h' } })).status).toBe(204);
  });

  it("passes the caller's address, for tokens bound to CIDR blocks", async () => {
    await app.request(
      'http://localhost/v1/edge/names',
      { headers: { 'x-svc-token': svc.root } },
      { incoming: { socket: { remoteAddress: '192.0.2.5' } } },
    );
    expect(asked[0]!.remoteAddress).toBe('192.0.2.5');
  });

  it('takes the token from X-Svc-Token, then X-Vault-Token, then a Bearer authorization', async () => {
    const ask = (headers: Record<string, string>) => app.request('http://localhost/v1/edge/names', { headers });
    await ask({ 'x-svc-token': 'svc', 'x-vault-token': 'vault', authorization: 'Bearer bearer' });
    await ask({ 'x-vault-token': 'vault', authorization: 'Bearer bearer' });
    await ask({ authorization: 'bearer  bearer ' });
    await ask({ authorization: 'Basic abc' });
    expect(asked.map((a) => a.token)).toEqual(['svc', 'vault', 'bearer', undefined]);
  });
});

describe('authorize: the decision', () => {
  it('refuses with 403 before the handler runs, and records the refusal', async () => {
    const r = await call(app, 'GET', '/v1/edge/names', { token: 'not-a-token' });
    expect(r.status).toBe(403);
    expect(ran).toHaveLength(0);
    const rec = auditedRequest(r);
    expect(rec.request.client_token).toBe('not-a-token');
    expect(rec.auth).toEqual({ client_token: 'not-a-token' });
  });

  it('hands the handler the principal it authorised, and records it with the client token', async () => {
    const t = await policy('edge-reader', 'path "edge/names" { capabilities = ["read"] }');
    const r = await call(app, 'GET', '/v1/edge/names', { token: t });
    expect(r.status).toBe(200);
    expect(ran[0]!.principal).toMatchObject({ policies: ['default', 'edge-reader'] });
    expect(ran[0]!.token).toBe(t);
    const rec = auditedRequest(r);
    expect(rec.auth).toMatchObject({ client_token: t, accessor: ran[0]!.principal!.accessor, policies: ['default', 'edge-reader'] });
  });

  it('refuses a read that answers a listing where the listing is denied, though the read is granted', async () => {
    const reader = await policy('edge-names-read', 'path "edge/names" { capabilities = ["read"] }');
    const denied = await policy(
      'edge-names-deny',
      'path "edge/names" { capabilities = ["read"] }\npath "edge/names/" { capabilities = ["deny"] }',
    );
    expect((await call(app, 'GET', '/v1/edge/names', { token: reader })).status).toBe(200);
    expect(asked.at(-1)!.listing).toBe('edge/names/');
    expect((await call(app, 'GET', '/v1/edge/names', { token: denied })).status).toBe(403);
    // Only a read asks with the listing; the LIST itself is checked on the listing path.
    await call(app, 'LIST', '/v1/edge/names', { token: svc.root });
    expect(asked.at(-1)!.listing).toBeUndefined();
  });
});

describe('authorize: unauthenticated operations', () => {
  it('skips the authorizer: no token needed, a bad one not refused; the handler gets no principal', async () => {
    expect((await call(app, 'GET', '/v1/edge/open')).status).toBe(200);
    expect((await call(app, 'GET', '/v1/edge/open', { token: 'not-a-token' })).status).toBe(200);
    expect(asked).toHaveLength(0);
    expect(ran.map((req) => req.principal)).toEqual([undefined, undefined]);
    // The token sent is still the handler's (paths that check a token themselves read it).
    expect(ran[1]!.token).toBe('not-a-token');
  });

  it("still authorises the path's other operations", async () => {
    expect((await call(app, 'POST', '/v1/edge/open', { body: {} })).status).toBe(403);
    expect(asked.map((a) => a.op)).toEqual(['update']);
  });
});
