/**
 * The audit trail (lib/http/middleware/audit-trail.ts): the request record is written once,
 * either by the surface right before its handler acts (`trail.record()`) or, when no handler
 * ran (a refusal, a miss), after the answer; then the response record. A record no device takes
 * means no action (the handler's own record() throws) or, after the answer, a 500 through the
 * surface's renderer. A tiny app: the request scope, the trail over a real Auditor whose file
 * device writes in a temp dir (log_raw, so the records read in clear), and routes that act,
 * refuse, or set the response record.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono, type Context } from 'hono';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Auditor } from '../../../lib/audit/auditor';
import { fileDevice, type AuditDevice } from '../../../lib/audit/devices';
import { AuditHasher } from '../../../lib/audit/hasher';
import type { HttpError } from '../../../lib/errors';
import { auditTrail } from '../../../lib/http/middleware/audit-trail';
import { requestScope } from '../../../lib/http/middleware/request-scope';
import { LocalKeyWrapper } from '../../../lib/keys/local-key';
import { Sealer } from '../../../lib/keys/sealed';
import { setLogLevel } from '../../../lib/log';
import { captureLogs } from '../../helpers/capture-logs';
import { createTestStore } from '../../helpers/store';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-audit-trail-'));
let hasher: AuditHasher;
let n = 0;

beforeAll(async () => {
  const { store } = await createTestStore();
  hasher = new AuditHasher(store.partition('sys'), new Sealer(new LocalKeyWrapper(randomBytes(32))));
});
afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Rec = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const newFile = () => join(dir, `audit-${n++}.log`);
const records = (path: string): Rec[] => {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);
};

/** A real file device that takes request records and fails every response record. */
function requestsOnly(path: string): AuditDevice {
  const file = fileDevice(path, { logRaw: true });
  return {
    ...file,
    write: (lines) => (lines.startsWith('{"type":"response"') ? Promise.reject(new Error('disk full')) : file.write(lines)),
  };
}

/** The surface's error renderer: what the trail answers with when its records cannot be written. */
function surfaceError(err: HttpError, c: Context): Response {
  return new Response(JSON.stringify({ errors: err.messages, request_id: c.get('scope').id }), {
    status: err.status,
    headers: { 'content-type': 'application/json', 'x-rendered-by': 'surface' },
  });
}

/** What the handlers saw: whether they acted, and the audit file's records at that moment. */
let acted: string[] = [];
let seenWhenActing: Rec[] = [];
let seenEnabled: boolean[] = [];

function appOver(auditor: Auditor | undefined, path = ''): Hono {
  const app = new Hono();
  app.use(requestScope('audit-test'), auditTrail(auditor, surfaceError));
  app.post('/v1/kv/acts', async (c) => {
    const trail = c.get('audit');
    seenEnabled.push(trail.enabled);
    trail.request.mountType = 'kv';
    trail.request.mountPoint = 'kv/';
    trail.request.data = { value: 'v1' };
    await trail.record();
    await trail.record();
    seenWhenActing = path ? records(path) : [];
    acted.push('acts');
    trail.response = { status: 200, data: { written: true } };
    return c.json({ data: { written: true } });
  });
  app.all('/v1/kv/refused', (c) => {
    c.get('audit').error = 'permission denied';
    return c.json({ errors: ['permission denied'] }, 403);
  });
  app.get('/v1/kv/plain', (c) => c.text('no response record set', 202));
  // As the front door's: a throw (the handler's record() failing) answers 500 before the trail writes.
  app.onError((_e, c) => c.json({ errors: ['internal error'] }, 500));
  return app;
}

function ask(app: Hono, path: string, init: RequestInit = {}, env?: unknown) {
  return app.request(`http://localhost${path}`, init, env);
}

describe('auditTrail, with a device that takes every record', () => {
  it('writes the request record before the handler acts, once, then the response record', async () => {
    const path = newFile();
    const app = appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher), path);
    acted = [];
    const r = await ask(app, '/v1/kv/acts', { method: 'POST' });
    expect(r.status).toBe(200);
    expect(acted).toEqual(['acts']);
    expect(seenWhenActing.map((x) => x.type)).toEqual(['request']);
    const [req, res] = records(path);
    expect(records(path)).toHaveLength(2);
    expect(req).toMatchObject({
      type: 'request',
      request: { operation: 'update', mount_type: 'kv', path: 'kv/acts', data: { value: 'v1' } },
    });
    expect(res).toMatchObject({
      type: 'response',
      request: { id: req!.request.id },
      response: { status_code: 200, data: { written: true } },
    });
    expect(res!.error).toBeUndefined();
  });

  it('writes the request record of a refusal after the answer, then the response with its error', async () => {
    const path = newFile();
    const r = await ask(appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher)), '/v1/kv/refused');
    expect(r.status).toBe(403);
    const recs = records(path);
    expect(recs.map((x) => x.type)).toEqual(['request', 'response']);
    expect(recs[1]).toMatchObject({ response: { status_code: 403 }, error: 'permission denied' });
  });

  it('records a request no route takes, with the status it got', async () => {
    const path = newFile();
    const r = await ask(appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher)), '/v1/kv/nowhere%2Fdeep');
    expect(r.status).toBe(404);
    const recs = records(path);
    expect(recs.map((x) => x.type)).toEqual(['request', 'response']);
    expect(recs[0]!.request).toMatchObject({ operation: 'read', path: 'kv/nowhere/deep' });
    expect(recs[1]!.response.status_code).toBe(404);
  });

  it("records the answer's status when the surface set no response record", async () => {
    const path = newFile();
    await ask(appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher)), '/v1/kv/plain');
    expect(records(path)[1]!.response).toEqual({ mount_type: '', mount_point: '', status_code: 202 });
  });

  it("fills the request record from the scope: its id, the method's operation, the decoded path, user agent and caller's address", async () => {
    const path = newFile();
    const app = appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher));
    const env = { incoming: { socket: { remoteAddress: '192.0.2.44' } } };
    for (const method of ['GET', 'LIST', 'PUT', 'DELETE', 'PATCH']) {
      await ask(app, '/v1/kv/refused', { method, headers: { 'user-agent': 'vault-client/1.0' } }, env);
    }
    const requests = records(path).filter((x) => x.type === 'request');
    expect(requests.map((x) => x.request.operation)).toEqual(['read', 'list', 'update', 'delete', 'patch']);
    for (const x of requests) {
      expect(x.request).toMatchObject({ path: 'kv/refused', user_agent: 'vault-client/1.0', remote_address: '192.0.2.44' });
      expect(x.request.id).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(requests.map((x) => x.request.id)).size).toBe(5);
  });

  it('keeps at most 512 characters of the user agent', async () => {
    const path = newFile();
    await ask(appOver(new Auditor([fileDevice(path, { logRaw: true })], hasher)), '/v1/kv/refused', {
      headers: { 'user-agent': 'a'.repeat(2000) },
    });
    expect(records(path)[0]!.request.user_agent).toBe('a'.repeat(512));
  });
});

describe('auditTrail, failing closed', () => {
  it("a handler that cannot record its request never acts: the surface's renderer answers 500", async () => {
    const blocked = newFile();
    mkdirSync(blocked);
    acted = [];
    const r = await ask(appOver(new Auditor([fileDevice(blocked, { logRaw: true })], hasher)), '/v1/kv/acts', { method: 'POST' });
    expect(acted).toEqual([]);
    expect(r.status).toBe(500);
    expect(r.headers.get('x-rendered-by')).toBe('surface');
    expect(((await r.json()) as Rec).errors).toEqual(['the audit log could not record the request']);
  });

  it("a refusal whose records cannot be written becomes the surface's 500", async () => {
    const blocked = newFile();
    mkdirSync(blocked);
    const r = await ask(appOver(new Auditor([fileDevice(blocked, { logRaw: true })], hasher)), '/v1/kv/refused');
    expect(r.status).toBe(500);
    expect(r.headers.get('x-rendered-by')).toBe('surface');
  });

  it('a response record no device takes turns the answer into a 500; the cause is logged, not shown', async () => {
    const path = newFile();
    const lines = captureLogs();
    acted = [];
    const r = await ask(appOver(new Auditor([requestsOnly(path)], hasher)), '/v1/kv/acts', { method: 'POST' });
    setLogLevel('silent');
    // The handler acted (its request record was written first), but the answer is not let out.
    expect(acted).toEqual(['acts']);
    expect(records(path).map((x) => x.type)).toEqual(['request']);
    expect(r.status).toBe(500);
    const body = (await r.json()) as Rec;
    expect(body.errors).toEqual(['the audit log could not record the request']);
    expect(JSON.stringify(body)).not.toContain('disk full');
    const fault = lines
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Rec)
      .find((l) => l.event === 'audit-fault');
    expect(fault).toMatchObject({ level: 'error', request_id: body.request_id, error: { message: 'disk full' } });
  });
});

describe('auditTrail, with no audit device', () => {
  it('tells the surface it is off, writes nothing and never fails the answer', async () => {
    for (const auditor of [undefined, new Auditor([], hasher)]) {
      seenEnabled = [];
      acted = [];
      const app = appOver(auditor);
      expect((await ask(app, '/v1/kv/acts', { method: 'POST' })).status).toBe(200);
      expect((await ask(app, '/v1/kv/refused')).status).toBe(403);
      expect(seenEnabled).toEqual([false]);
      expect(acted).toEqual(['acts']);
    }
  });
});
