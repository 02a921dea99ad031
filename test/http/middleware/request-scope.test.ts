/**
 * The request scope (lib/http/middleware/request-scope.ts), the first thing every request gets:
 * a fresh id, the URL, `?pretty`, the caller's address (the socket's locally, API Gateway's
 * sourceIp under Lambda), the path after /v1/ decoded once, and the log line's first fields.
 * A tiny app with the middleware and a route that answers the scope it sees.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestScope, type RequestScope } from '../../../lib/http/middleware/request-scope';

const app = new Hono();
app.use(requestScope('scope-test'));
app.all('*', (c) => {
  const s = c.get('scope');
  return c.json({ ...s, url: s.url.href, hasPath: 'path' in s, hasRemote: 'remoteAddress' in s });
});

type Seen = Omit<RequestScope, 'url'> & { url: string; hasPath: boolean; hasRemote: boolean };

async function scopeOf(path: string, init: RequestInit = {}, env?: unknown): Promise<Seen> {
  const r = await app.request(`http://localhost${path}`, init, env);
  expect(r.status).toBe(200);
  return (await r.json()) as Seen;
}

describe('requestScope', () => {
  it('gives every request a fresh id, which is also its log line request_id', async () => {
    const a = await scopeOf('/v1/sys/health');
    const b = await scopeOf('/v1/sys/health');
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b.id).not.toBe(a.id);
    expect(a.log.request_id).toBe(a.id);
  });

  it('starts the log line with the function name and the method', async () => {
    const s = await scopeOf('/v1/pki/roles/web', { method: 'DELETE' });
    expect(s.log).toEqual({ request_id: s.id, function: 'scope-test', method: 'DELETE' });
  });

  it('keeps the URL as requested, query included', async () => {
    expect((await scopeOf('/v1/pki/roles/web?a=1&b=two')).url).toBe('http://localhost/v1/pki/roles/web?a=1&b=two');
  });

  it('is pretty when ?pretty is present, with or without a value', async () => {
    expect((await scopeOf('/v1/sys/mounts')).pretty).toBe(false);
    expect((await scopeOf('/v1/sys/mounts?pretty')).pretty).toBe(true);
    expect((await scopeOf('/v1/sys/mounts?pretty=false')).pretty).toBe(true);
    expect((await scopeOf('/v1/sys/mounts?prettyish=1')).pretty).toBe(false);
  });

  it('decodes the path once, after /v1/ (%2F is a slash, %25 a percent sign)', async () => {
    expect((await scopeOf('/v1/pki/roles/web')).path).toBe('pki/roles/web');
    expect((await scopeOf('/v1/pki/roles%2Fprod')).path).toBe('pki/roles/prod');
    expect((await scopeOf('/v1/kv/a%2525b')).path).toBe('kv/a%25b');
    expect((await scopeOf('/v1/pki/roles/')).path).toBe('pki/roles/');
  });

  it('keeps the leading slash of a path not under /v1/', async () => {
    expect((await scopeOf('/health')).path).toBe('/health');
  });

  it('has no path when the path cannot be decoded (routing answers that with 400)', async () => {
    for (const bad of ['/v1/kv/%E0%A4%A', '/v1/kv/a%2F..%2Fb', '/v1/kv/a%00b']) {
      const s = await scopeOf(bad);
      expect(s.hasPath, bad).toBe(false);
    }
  });

  it("takes the caller's address from the socket (the local server)", async () => {
    const s = await scopeOf('/v1/sys/health', {}, { incoming: { socket: { remoteAddress: '192.0.2.10' } } });
    expect(s.remoteAddress).toBe('192.0.2.10');
  });

  it("takes the caller's address from API Gateway's sourceIp (HTTP API and REST API events)", async () => {
    const http = await scopeOf('/v1/sys/health', {}, { event: { requestContext: { http: { sourceIp: '198.51.100.7' } } } });
    expect(http.remoteAddress).toBe('198.51.100.7');
    const rest = await scopeOf('/v1/sys/health', {}, { event: { requestContext: { identity: { sourceIp: '203.0.113.9' } } } });
    expect(rest.remoteAddress).toBe('203.0.113.9');
  });

  it('has no address when nothing names one (never a header a client could forge)', async () => {
    const s = await scopeOf('/v1/sys/health', { headers: { 'x-forwarded-for': '10.9.9.9' } });
    expect(s.hasRemote).toBe(false);
  });
});
