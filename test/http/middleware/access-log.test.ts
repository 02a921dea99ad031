/**
 * The access log (lib/http/middleware/access-log.ts): one JSON line per request, once it is
 * answered, with the scope's fields (request id, function, method, and what the surface added),
 * the status the client got and the time taken. A tiny app: the request scope, the access log,
 * and routes that answer, fail, or add their own log fields.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { accessLog } from '../../../lib/http/middleware/access-log';
import { requestScope } from '../../../lib/http/middleware/request-scope';
import { setLogLevel } from '../../../lib/log';
import { captureLogs } from '../../helpers/capture-logs';

const app = new Hono();
app.use(requestScope('log-test'), accessLog());
app.get('/v1/ok', (c) => c.json({ ok: true }));
app.post('/v1/created', (c) => c.json({ ok: true }, 201));
app.get('/v1/roles/:name', (c) => {
  const log = c.get('scope').log;
  log.mount = 'pki';
  log.path = 'pki/roles/{name}';
  return c.body(null, 204);
});
app.get('/v1/boom', () => {
  throw new Error('the cause, with a secret-looking value lk.abc');
});
app.onError((_e, c) => c.json({ errors: ['internal error'] }, 500));

afterEach(() => {
  setLogLevel('silent');
  vi.restoreAllMocks();
});

type Line = Record<string, unknown>;

/** The request log lines written while `fn` runs. */
async function logged(fn: () => unknown): Promise<Line[]> {
  const lines = captureLogs();
  await fn();
  setLogLevel('silent');
  vi.restoreAllMocks();
  return lines
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.event === 'request');
}

describe('accessLog', () => {
  it("writes one line per request with the scope's fields, the status and the duration", async () => {
    const lines = await logged(async () => {
      expect((await app.request('http://localhost/v1/ok')).status).toBe(200);
      expect((await app.request('http://localhost/v1/ok')).status).toBe(200);
    });
    expect(lines).toHaveLength(2);
    const [first, second] = lines;
    expect(first).toMatchObject({ level: 'info', event: 'request', function: 'log-test', method: 'GET', status: 200 });
    expect(first!.request_id).toEqual(expect.any(String));
    expect(second!.request_id).not.toBe(first!.request_id);
    expect(typeof first!.duration_ms).toBe('number');
    expect(typeof first!.time).toBe('string');
  });

  it('records the status the client got, whatever the route chose', async () => {
    const lines = await logged(() => app.request('http://localhost/v1/created', { method: 'POST' }));
    expect(lines).toEqual([expect.objectContaining({ method: 'POST', status: 201 })]);
  });

  it('carries the fields a surface added to the scope (mount, path template)', async () => {
    const lines = await logged(() => app.request('http://localhost/v1/roles/web'));
    expect(lines).toEqual([expect.objectContaining({ mount: 'pki', path: 'pki/roles/{name}', status: 204 })]);
  });

  it("logs a failure's status as answered by onError, and never the failure's message", async () => {
    const lines = await logged(() => app.request('http://localhost/v1/boom'));
    expect(lines).toEqual([expect.objectContaining({ status: 500 })]);
    expect(JSON.stringify(lines)).not.toContain('lk.abc');
  });

  it('logs a request no route takes, with its 404', async () => {
    const lines = await logged(() => app.request('http://localhost/v1/nowhere'));
    expect(lines).toEqual([expect.objectContaining({ method: 'GET', status: 404 })]);
  });

  it('writes nothing at log level silent', async () => {
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    setLogLevel('silent');
    await app.request('http://localhost/v1/ok');
    expect(out).not.toHaveBeenCalled();
  });
});
