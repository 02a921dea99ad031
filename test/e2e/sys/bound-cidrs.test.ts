/**
 * A token bound to CIDR blocks makes only bound tokens (issue 23, item 4): its children, its
 * orphans, the tokens of a token role and the wrapping tokens it asks for are all bound to its
 * blocks, so none of them works from an address the parent may not call from. Over real HTTP,
 * from two addresses of 127.0.0.0/8 (the socket's own source address is what the service sees).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { call, createTestService, type TestService } from '../../helpers/service';

const NEAR = '127.0.0.1';
const FAR = '127.0.0.2';

let svc: TestService;
let server: Served;
/** A token bound to 127.0.0.1/32 (an AppRole login), allowed to make tokens every way. */
let bound: string;

interface Answer {
  status: number;
  json?: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

/** One request over the socket from `from`. */
function from(addr: string, method: string, path: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const url = new URL(`${server.url}/v1/${path}`);
  const body = o.body === undefined ? undefined : JSON.stringify(o.body);
  return new Promise<Answer>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: addr,
        headers: {
          ...(o.token ? { 'x-vault-token': o.token } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          ...o.headers,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, text, ...(text.startsWith('{') ? { json: JSON.parse(text) } : {}) });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const asRoot = (method: string, path: string, body?: unknown) => call(svc.app, method, `/v1/${path}`, { token: svc.root, body });

beforeAll(async () => {
  svc = await createTestService();
  server = await listen(svc.app.fetch, { port: 0, host: NEAR });
  const policy = {
    path: {
      'auth/token/create': { capabilities: ['update', 'sudo'] },
      'auth/token/create-orphan': { capabilities: ['update', 'sudo'] },
      'auth/token/create/*': { capabilities: ['update'] },
      'sys/wrapping/wrap': { capabilities: ['update'] },
      'auth/token/lookup-self': { capabilities: ['read'] },
    },
  };
  expect((await asRoot('PUT', 'sys/policy/maker', { policy: JSON.stringify(policy) })).status).toBe(204);
  expect((await asRoot('POST', 'auth/token/roles/kids', { allowed_policies: 'maker', orphan: true })).status).toBe(204);
  expect((await asRoot('POST', 'auth/approle/role/pinned', { token_policies: 'maker', token_bound_cidrs: `${NEAR}/32` })).status).toBe(204);
  const roleId = (await asRoot('GET', 'auth/approle/role/pinned/role-id')).json!.data.role_id as string;
  const secretId = (await asRoot('POST', 'auth/approle/role/pinned/secret-id')).json!.data.secret_id as string;
  const login = await from(NEAR, 'POST', 'auth/approle/login', { body: { role_id: roleId, secret_id: secretId } });
  expect(login.status, login.text).toBe(200);
  bound = login.json!.auth.client_token as string;
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('a CIDR-bound token', () => {
  it('works from its block and is refused from another address', async () => {
    expect((await from(NEAR, 'GET', 'auth/token/lookup-self', { token: bound })).status).toBe(200);
    expect((await from(FAR, 'GET', 'auth/token/lookup-self', { token: bound })).status).toBe(403);
  });

  const makers: [string, string, unknown][] = [
    ['a child (auth/token/create)', 'auth/token/create', { policies: ['maker'] }],
    ['a child asked to be an orphan (no_parent)', 'auth/token/create', { policies: ['maker'], no_parent: true }],
    ['an orphan (auth/token/create-orphan)', 'auth/token/create-orphan', { policies: ['maker'] }],
    ['a token of a token role (auth/token/create/kids)', 'auth/token/create/kids', {}],
  ];

  it.each(makers)('makes %s bound to the same blocks: usable from the block, refused elsewhere', async (_label, path, body) => {
    const made = await from(NEAR, 'POST', path, { token: bound, body });
    expect(made.status, made.text).toBe(200);
    const child = made.json!.auth.client_token as string;
    const near = await from(NEAR, 'GET', 'auth/token/lookup-self', { token: child });
    expect(near.status, near.text).toBe(200);
    expect(near.json!.data.bound_cidrs ?? near.json!.data.token_bound_cidrs ?? [`${NEAR}/32`]).toEqual([`${NEAR}/32`]);
    expect((await from(FAR, 'GET', 'auth/token/lookup-self', { token: child })).status).toBe(403);
    // And the child's own children, a generation further.
    const grand = await from(NEAR, 'POST', 'auth/token/create', { token: child, body: { policies: ['maker'] } });
    expect(grand.status, grand.text).toBe(200);
    expect((await from(FAR, 'GET', 'auth/token/lookup-self', { token: grand.json!.auth.client_token as string })).status).toBe(403);
  });

  it('asks for wrapped responses under wrapping tokens bound to its blocks (unwrap, lookup, rewrap)', async () => {
    const wrapped = async () => {
      const w = await from(NEAR, 'POST', 'sys/wrapping/wrap', {
        token: bound,
        body: { secret: 'x' },
        headers: { 'x-vault-wrap-ttl': '5m' },
      });
      expect(w.status, w.text).toBe(200);
      return w.json!.wrap_info.token as string;
    };
    const wt = await wrapped();
    expect((await from(FAR, 'POST', 'sys/wrapping/unwrap', { token: wt })).status).toBe(403);
    expect((await from(FAR, 'POST', 'sys/wrapping/unwrap', { body: { token: wt } })).status).toBe(403);
    expect((await from(FAR, 'POST', 'sys/wrapping/lookup', { body: { token: wt } })).status).toBe(403);
    expect((await from(FAR, 'POST', 'sys/wrapping/rewrap', { token: wt })).status).toBe(403);
    // Refused, not used up: it still unwraps from the block.
    const ok = await from(NEAR, 'POST', 'sys/wrapping/unwrap', { token: wt });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json!.data).toEqual({ secret: 'x' });

    // A rewrapped response keeps the binding.
    const again = await from(NEAR, 'POST', 'sys/wrapping/rewrap', { token: await wrapped() });
    expect(again.status, again.text).toBe(200);
    const rt = again.json!.wrap_info.token as string;
    expect((await from(FAR, 'POST', 'sys/wrapping/unwrap', { token: rt })).status).toBe(403);
    expect((await from(NEAR, 'POST', 'sys/wrapping/unwrap', { token: rt })).status).toBe(200);
  });

  it('a wrapped token create: both the wrapping token and the token inside are bound', async () => {
    const w = await from(NEAR, 'POST', 'auth/token/create', {
      token: bound,
      body: { policies: ['maker'] },
      headers: { 'x-vault-wrap-ttl': '5m' },
    });
    expect(w.status, w.text).toBe(200);
    const wt = w.json!.wrap_info.token as string;
    expect((await from(FAR, 'POST', 'sys/wrapping/unwrap', { token: wt })).status).toBe(403);
    const u = await from(NEAR, 'POST', 'sys/wrapping/unwrap', { token: wt });
    expect(u.status, u.text).toBe(200);
    const inner = u.json!.auth.client_token as string;
    expect((await from(FAR, 'GET', 'auth/token/lookup-self', { token: inner })).status).toBe(403);
    expect((await from(NEAR, 'GET', 'auth/token/lookup-self', { token: inner })).status).toBe(200);
  });

  it('an unbound token still makes unbound children (control)', async () => {
    const free = await asRoot('POST', 'auth/token/create', { policies: ['maker'] });
    const child = await from(FAR, 'POST', 'auth/token/create', {
      token: free.json!.auth.client_token as string,
      body: { policies: ['maker'] },
    });
    expect(child.status, child.text).toBe(200);
    expect((await from(FAR, 'GET', 'auth/token/lookup-self', { token: child.json!.auth.client_token as string })).status).toBe(200);
  });
});
