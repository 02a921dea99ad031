/**
 * The shared client against a real Latchkey: in process (appTransport) and over HTTP
 * (httpTransport, keep-alive): the envelope, LIST as GET ?list=true, 204s, reads of nothing,
 * ClientError with the server's messages, escaping, retries of idempotent calls only.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientError, LatchkeyClient } from '../../lib/client/client';
import { appTransport } from '../../lib/client/transport';
import { listen, type Served } from '../../lib/local/http-server';
import { pkiEngine } from '../../lib/pki/engine';
import { createTestService, type TestService } from '../helpers/service';

let svc: TestService;
let served: Served;

beforeAll(async () => {
  svc = await createTestService({ engines: [pkiEngine] });
  served = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await served.close();
});

const clients = () => ({
  'in process': new LatchkeyClient({ address: 'http://localhost', token: svc.root, transport: appTransport(svc.app) }),
  'over HTTP': new LatchkeyClient({ address: served.url, token: svc.root }),
});

describe.each(['in process', 'over HTTP'] as const)('LatchkeyClient, %s', (kind) => {
  const client = () => clients()[kind];

  it('writes, reads and lists (LIST sent as GET ?list=true), deletes', async () => {
    const c = client();
    const role = `r-${kind.replace(' ', '-')}`;
    expect(await c.write(`pki/roles/${role}`, { allow_any_name: true, ttl: '1h' })).toMatchObject({ data: { allow_any_name: true } });
    expect((await c.read(`pki/roles/${role}`))?.data).toMatchObject({ allow_any_name: true });
    expect(await c.list('pki/roles')).toContain(role);
    expect(await c.delete(`pki/roles/${role}`)).toBeUndefined();
    expect(await c.read(`pki/roles/${role}`)).toBeUndefined();
  });

  it('answers [] for an empty listing and undefined for nothing there', async () => {
    expect(await client().list('pki/certs/revoked')).toEqual([]);
    expect(await client().read('pki/roles/none-such')).toBeUndefined();
  });

  it("throws ClientError with the server's status and messages", async () => {
    const err = await client()
      .write('pki/roles/bad', { ttl: 'soon' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect(err).toMatchObject({ status: 400, method: 'POST', path: 'pki/roles/bad' });
    expect((err as ClientError).errors.join(' ')).toMatch(/ttl/);
    const anon = new LatchkeyClient({ address: client().address, transport: kind === 'in process' ? appTransport(svc.app) : undefined });
    await expect(anon.read('sys/policy')).rejects.toMatchObject({ status: 403 });
  });

  it('logs in and keeps nothing: the auth is answered, the token set by the caller', async () => {
    const c = client();
    const made = await c.write('auth/token/create', { policies: ['default'], ttl: '10m' });
    const other = new LatchkeyClient({
      address: c.address,
      token: made!.auth!.client_token,
      transport: kind === 'in process' ? appTransport(svc.app) : undefined,
    });
    expect((await other.read('auth/token/lookup-self'))?.data).toMatchObject({ policies: ['default'] });
  });
});

describe('retries', () => {
  let flaky: Server;
  let url = '';
  const seen: string[] = [];
  let failures = 0;

  beforeAll(async () => {
    flaky = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (failures > 0) {
        failures--;
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"errors":["busy"]}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}');
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => flaky.close(() => r())));

  it('retries an idempotent call on a 5xx with back-off, and gives up after its tries', async () => {
    const c = new LatchkeyClient({ address: url, backoffMs: 1, retries: 2 });
    seen.length = 0;
    failures = 2;
    expect((await c.read('x/y'))?.data).toEqual({ ok: true });
    expect(seen).toEqual(['GET /v1/x/y', 'GET /v1/x/y', 'GET /v1/x/y']);
    failures = 3;
    await expect(c.list('x')).rejects.toMatchObject({ status: 503, errors: ['busy'] });
    failures = 0;
  });

  it('sends a write once, whatever the answer', async () => {
    const c = new LatchkeyClient({ address: url, backoffMs: 1 });
    seen.length = 0;
    failures = 1;
    await expect(c.write('x/y', { a: 1 })).rejects.toMatchObject({ status: 503 });
    expect(seen).toEqual(['POST /v1/x/y']);
    failures = 0;
  });

  it('escapes each path segment and keeps the slashes', async () => {
    const c = new LatchkeyClient({ address: url });
    seen.length = 0;
    await c.read('secret/data/a b/ü?');
    expect(seen).toEqual(['GET /v1/secret/data/a%20b/%C3%BC%3F']);
  });
});
