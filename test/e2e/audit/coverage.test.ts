/**
 * Every operation the OpenAPI document lists (sys, auth/token, every engine mount, the catalog),
 * plus refusals, misses and malformed requests, against a fresh local service recording to its
 * file device: each answer's x-request-id has exactly one request record and one response
 * record (with the answer's status), and no record carries an id no call was answered with.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditedService, type Answer, type AuditedService } from './helpers';

let s: AuditedService;
/** Each call made, with what it was answered. */
const made: { what: string; answer: Answer }[] = [];

beforeAll(async () => {
  s = await auditedService();
});
afterAll(async () => {
  await s?.close();
});

interface Operation {
  path: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'LIST';
  /** GET ?list=true, as the document describes a LIST. */
  list?: boolean;
}

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
}

type OpenApiPaths = Record<string, Record<string, { parameters?: OpenApiParameter[] } | unknown>>;

/** A plausible value for a path parameter. */
function fill(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (path.startsWith('/sys/audit-hash/')) return 'file';
    switch (name) {
      case 'exported':
        return 'internal';
      case 'serial':
        return '01:02:03';
      case 'url_lease_id':
        return 'pki/issue/web/abc';
      case 'prefix':
        return 'pki/issue/';
      case 'key':
        return 'audit/coverage';
      case 'state':
        return 'any';
      case 'path':
        return 'no-such-mount';
      default:
        return 'audit-x';
    }
  });
}

function operationsOf(paths: OpenApiPaths): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'delete'].includes(method)) continue;
      const list = ((op as { parameters?: OpenApiParameter[] }).parameters ?? []).find((p) => p.name === 'list' && p.in === 'query');
      if (method === 'get' && list) {
        ops.push({ path, method: 'LIST' }, { path, method: 'GET', list: true });
        if (!list.required) ops.push({ path, method: 'GET' });
      } else {
        ops.push({ path, method: method.toUpperCase() as Operation['method'] });
      }
    }
  }
  // What revokes or removes runs last, so that nothing after it meets a changed service.
  const late = (o: Operation) => (/revoke|tidy|\/root$|mounts\/\{path\}$/.test(o.path) || o.method === 'DELETE' ? 1 : 0);
  return ops.sort((a, b) => late(a) - late(b));
}

async function record(what: string, answer: Promise<Answer>): Promise<Answer> {
  const a = await answer;
  made.push({ what, answer: a });
  return a;
}

describe('audit coverage', () => {
  it('records one request and one response for every operation in sys/openapi and every other call', async () => {
    const doc = await record('GET sys/openapi', s.call('GET', '/v1/sys/openapi', { token: s.root }));
    expect(doc.status).toBe(200);
    const ops = operationsOf(doc.json!.paths as OpenApiPaths);
    expect(ops.length).toBeGreaterThan(200);
    const catalog = ['/kv/{key}', '/catalog/register', '/agent/self', '/health/service/{name}', '/status/leader'];
    for (const p of catalog) expect(ops.map((o) => o.path)).toContain(p);

    for (const op of ops) {
      const path = `/v1${fill(op.path)}${op.list ? '?list=true' : ''}`;
      // A token that revokes itself is a child of root made for the call.
      const token = /revoke-self$/.test(op.path)
        ? (await record('child', s.call('POST', '/v1/auth/token/create', { token: s.root, body: { policies: ['root'] } }))).json!.auth
            .client_token
        : s.root;
      const isKv = op.path.startsWith('/kv/');
      const body = op.method === 'POST' || op.method === 'PUT' ? (isKv ? { raw: 'coverage value' } : { body: {} }) : {};
      await record(`${op.method} ${op.path}`, s.call(op.method, path, { token, ...body }));
    }

    // Refusals, misses and malformed requests are recorded too.
    await record('no token', s.call('GET', '/v1/sys/mounts'));
    await record('bad token', s.call('GET', '/v1/pki/roles/x', { token: 'not-a-token' }));
    await record('catalog bad token', s.call('GET', '/v1/kv/a', { headers: { 'x-consul-token': 'not-a-token' } }));
    await record('unknown path', s.call('GET', '/v1/nowhere/at/all', { token: s.root }));
    await record('unknown sys path', s.call('GET', '/v1/sys/nothing-here', { token: s.root }));
    await record('bad encoding', s.call('GET', '/v1/sys/%zz', { token: s.root }));
    await record('method not allowed', s.call('PATCH', '/v1/sys/health'));
    await record('HEAD', s.call('HEAD', '/v1/sys/health'));
    await record(
      'malformed json',
      s.call('POST', '/v1/auth/token/create', { token: s.root, raw: '{not json', headers: { 'content-type': 'application/json' } }),
    );
    await record('wrapped', s.call('POST', '/v1/auth/token/create', { token: s.root, body: {}, headers: { 'x-vault-wrap-ttl': '60' } }));
    await record('off /v1', s.call('GET', '/ui/', {}));

    const records = s.records();
    const missing = made.filter((m) => !m.answer.id).map((m) => `${m.what}: ${m.answer.status}`);
    expect(missing, 'answers without an x-request-id').toEqual([]);
    expect(new Set(s.ids).size).toBe(s.ids.length);

    const byId = new Map<string, { request: number; response: number; status?: number }>();
    for (const r of records) {
      const e = byId.get(r.request.id) ?? { request: 0, response: 0 };
      if (r.type === 'request') e.request++;
      else if (r.type === 'response') {
        e.response++;
        e.status = r.response?.status_code as number;
      }
      byId.set(r.request.id, e);
    }
    const wrong = made
      .filter((m) => {
        const e = byId.get(m.answer.id!);
        return !e || e.request !== 1 || e.response !== 1 || e.status !== m.answer.status;
      })
      .map((m) => `${m.what} (${m.answer.status}): ${JSON.stringify(byId.get(m.answer.id!))}`);
    expect(wrong, 'calls without exactly one request and one response record of their status').toEqual([]);
    const known = new Set(s.ids);
    expect(records.filter((r) => !known.has(r.request.id)).map((r) => `${r.type} ${r.request.path}`)).toEqual([]);
    expect(records).toHaveLength(2 * made.length);
  });
});
