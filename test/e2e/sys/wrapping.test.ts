/** Response wrapping over HTTP: X-Vault-Wrap-TTL, sys/wrapping/wrap, unwrap, lookup, rewrap. */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pkiEngine } from '../../../lib/pki/engine';
import { runHvac } from '../../helpers/hvac';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let clock = Date.now();

beforeAll(async () => {
  svc = await createTestService({ now: () => clock });
  const unwrapper = JSON.stringify({ path: { 'sys/wrapping/unwrap': { capabilities: ['update'] } } });
  await call(svc.app, 'PUT', '/v1/sys/policy/unwrapper', { token: svc.root, body: { policy: unwrapper } });
});

const WRAP = (ttl: string) => ({ 'x-vault-wrap-ttl': ttl });

/** A wrapped token create: the wrap_info, and nothing else. */
async function wrappedTokenCreate(ttl = '5m') {
  const r = await call(svc.app, 'POST', '/v1/auth/token/create', {
    token: svc.root,
    headers: WRAP(ttl),
    body: { policies: ['default'], ttl: '1h' },
  });
  expect(r.status).toBe(200);
  return r.json!;
}

describe('X-Vault-Wrap-TTL', () => {
  it('answers wrap_info instead of the response, and unwrap answers the original response exactly', async () => {
    const wrapped = await wrappedTokenCreate();
    expect(wrapped.data).toBeNull();
    expect(wrapped.auth).toBeNull();
    const info = wrapped.wrap_info;
    expect(info).toMatchObject({ ttl: 300, creation_path: 'auth/token/create' });
    expect(info.token).toMatch(/^lk\./);
    expect(Number.isNaN(Date.parse(info.creation_time))).toBe(false);

    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    expect(r.status).toBe(200);
    expect(r.json!.wrap_info).toBeNull();
    expect(r.json!.auth.policies).toEqual(['default']);
    expect(r.json!.auth.accessor).toBe(info.wrapped_accessor);
    expect(r.json!.request_id).toBe(wrapped.request_id);
    const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: r.json!.auth.client_token });
    expect(self.status).toBe(200);
  });

  it('is single-use: a second unwrap is refused', async () => {
    const { wrap_info: info } = await wrappedTokenCreate();
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(200);
    const again = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    expect(again.status).toBe(400);
    expect(again.json!.errors[0]).toMatch(/wrapping token is not valid or does not exist/);
  });

  it('is single-use under concurrent unwraps: exactly one caller gets the response', async () => {
    const { wrap_info: info } = await wrappedTokenCreate();
    const rs = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        i % 2
          ? call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })
          : call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: svc.root, body: { token: info.token } }),
      ),
    );
    expect(rs.filter((r) => r.status === 200)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 400)).toHaveLength(11);
  });

  it('takes X-Svc-Wrap-TTL and seconds', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/mounts', { token: svc.root, headers: { 'x-svc-wrap-ttl': '90' } });
    expect(r.json!.wrap_info).toMatchObject({ ttl: 90, creation_path: 'sys/mounts' });
    expect(r.json!.wrap_info.wrapped_accessor).toBeUndefined();
    const u = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: r.json!.wrap_info.token });
    expect(u.json!.data['pki/']).toMatchObject({ type: 'pki' });
  });

  it.each([['0'], ['500ms'], ['769h'], ['soon'], ['-5']])('refuses the wrap TTL %s with 400 before the handler runs', async (ttl) => {
    const name = `never-${Math.random().toString(36).slice(2)}`;
    const doc = JSON.stringify({ path: { 'x/*': { capabilities: ['read'] } } });
    const r = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, headers: WRAP(ttl), body: { policy: doc } });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/wrap TTL/);
    expect((await call(svc.app, 'GET', `/v1/sys/policy/${name}`, { token: svc.root })).status).toBe(404);
  });

  it('does not wrap empty (204) or raw responses, nor errors', async () => {
    const doc = JSON.stringify({ path: { 'x/*': { capabilities: ['read'] } } });
    const empty = await call(svc.app, 'PUT', '/v1/sys/policy/plain', { token: svc.root, headers: WRAP('1m'), body: { policy: doc } });
    expect(empty.status).toBe(204);
    const health = await call(svc.app, 'GET', '/v1/sys/health', { headers: WRAP('1m') });
    expect(health.json).toMatchObject({ initialized: true, sealed: false });
    expect(health.json!.wrap_info).toBeUndefined();
    const missing = await call(svc.app, 'GET', '/v1/sys/policy/nope', { token: svc.root, headers: WRAP('1m') });
    expect(missing.status).toBe(404);
  });

  it('keeps the wrapped response sealed in the store, bound to wrapped/<accessor>', async () => {
    const { wrap_info: info } = await wrappedTokenCreate();
    const item = await svc.deps.store.partition('sys').get<Record<string, unknown>>(`wrapped/${info.accessor}`);
    expect(item?.value).toMatchObject({ creation_path: 'auth/token/create', creation_ttl: 300, response: { $sealed: 1 } });
    expect(JSON.stringify(item)).not.toMatch(/lk\./);
    expect(JSON.stringify(item)).not.toMatch(/client_token/);
  });

  it('makes a single-use orphan token holding only response-wrapping, and no other path takes it', async () => {
    const { wrap_info: info } = await wrappedTokenCreate('2m');
    const look = await call(svc.app, 'POST', '/v1/auth/token/lookup-accessor', { token: svc.root, body: { accessor: info.accessor } });
    expect(look.json!.data).toMatchObject({
      policies: ['response-wrapping'],
      num_uses: 1,
      orphan: true,
      renewable: false,
      creation_ttl: 120,
    });
    expect((await call(svc.app, 'GET', '/v1/sys/mounts', { token: info.token })).status).toBe(403);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/wrap', { token: info.token, headers: WRAP('1m'), body: { a: 1 } })).status).toBe(
      403,
    );
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(200);
  });

  it('expires with its TTL', async () => {
    const { wrap_info: info } = await wrappedTokenCreate('1m');
    clock += 61_000;
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(400);
  });

  it('is gone once its token is revoked', async () => {
    const { wrap_info: info } = await wrappedTokenCreate();
    expect(
      (await call(svc.app, 'POST', '/v1/auth/token/revoke-accessor', { token: svc.root, body: { accessor: info.accessor } })).status,
    ).toBe(204);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(400);
  });
});

describe('sys/wrapping/unwrap by a third party', () => {
  it("needs the caller's own token to allow sys/wrapping/unwrap; a refusal does not use the wrapping token up", async () => {
    const { wrap_info: info } = await wrappedTokenCreate();
    const stranger = await tokenWith(svc, ['default']);
    const refused = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: stranger, body: { token: info.token } });
    expect(refused.status).toBe(403);
    const caller = await tokenWith(svc, ['unwrapper']);
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: caller, body: { token: info.token } });
    expect(r.status).toBe(200);
    expect(r.json!.auth.accessor).toBe(info.wrapped_accessor);
  });

  it('refuses a token that is not a wrapping token, and a missing one, with 400', async () => {
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: svc.root, body: { token: svc.root } });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/wrapping token is not valid/);
    const none = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', {});
    expect(none.status).toBe(400);
    expect(none.json!.errors[0]).toMatch(/missing wrapping token/);
  });
});

describe('sys/wrapping/wrap, lookup, rewrap', () => {
  async function wrapData(data: Record<string, unknown>, ttl = '10m') {
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/wrap', { token: svc.root, headers: WRAP(ttl), body: data });
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toBeNull();
    return r.json!.wrap_info;
  }

  it('wrap wraps the request body, every key, and needs a wrap TTL', async () => {
    const info = await wrapData({ user: 'svc', password: 'hunter2', n: 3 });
    expect(info.creation_path).toBe('sys/wrapping/wrap');
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    expect(r.json!.data).toEqual({ user: 'svc', password: 'hunter2', n: 3 });
    const bare = await call(svc.app, 'POST', '/v1/sys/wrapping/wrap', { token: svc.root, body: { a: 'b' } });
    expect(bare.status).toBe(400);
    expect(bare.json!.errors[0]).toMatch(/requires response wrapping/);
  });

  it('wraps a response near the body limit (stored in chunks) and still hands it out once', async () => {
    const info = await wrapData({ blob: 'x'.repeat(900_000) }, '1m');
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token });
    expect(r.json!.data.blob).toHaveLength(900_000);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(400);
  });

  it('lookup needs no client token, answers creation path, time and TTL, and does not use the token up', async () => {
    const info = await wrapData({ a: 'b' }, '7m');
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/lookup', { body: { token: info.token } });
    expect(r.status).toBe(200);
    expect(r.json!.data).toEqual({ creation_path: 'sys/wrapping/wrap', creation_time: info.creation_time, creation_ttl: 420 });
    const viaHeader = await call(svc.app, 'POST', '/v1/sys/wrapping/lookup', { token: info.token });
    expect(viaHeader.json!.data.creation_ttl).toBe(420);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(200);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/lookup', { body: { token: info.token } })).status).toBe(400);
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/lookup', { body: { token: svc.root } })).status).toBe(400);
  });

  it('rewrap moves the response to a new token with the same TTL and path; the old one is spent', async () => {
    const info = await wrapData({ k: 'v' }, '3m');
    const r = await call(svc.app, 'POST', '/v1/sys/wrapping/rewrap', { token: info.token });
    expect(r.status).toBe(200);
    const next = r.json!.wrap_info;
    expect(next.token).not.toBe(info.token);
    expect(next).toMatchObject({ ttl: 180, creation_path: 'sys/wrapping/wrap' });
    expect((await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: info.token })).status).toBe(400);
    const u = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: svc.root, body: { token: next.token } });
    expect(u.json!.data).toEqual({ k: 'v' });
  });
});

describe('the response-wrapping policy', () => {
  it('is built in, readable, immutable and not listed', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/policy/response-wrapping', { token: svc.root });
    expect(Object.keys(JSON.parse(r.json!.data.policy).path).sort()).toEqual([
      'sys/wrapping/lookup',
      'sys/wrapping/rewrap',
      'sys/wrapping/unwrap',
    ]);
    const doc = JSON.stringify({ path: { '*': { capabilities: ['sudo', 'read'] } } });
    expect((await call(svc.app, 'PUT', '/v1/sys/policy/response-wrapping', { token: svc.root, body: { policy: doc } })).status).toBe(400);
    expect((await call(svc.app, 'DELETE', '/v1/sys/policy/response-wrapping', { token: svc.root })).status).toBe(400);
    const list = await call(svc.app, 'GET', '/v1/sys/policy', { token: svc.root });
    expect(list.json!.data.keys).not.toContain('response-wrapping');
  });
});

describe('python3-hvac', () => {
  it('wraps a token create with wrap_ttl, unwraps it once, and drives wrap, lookup, rewrap', async () => {
    const out = await runHvac(svc, join(import.meta.dirname, 'hvac_wrapping.py'));
    expect(out.wrapped.data).toBeNull();
    expect(out.wrapped.auth).toBeNull();
    expect(out.wrapped.wrap_info).toMatchObject({ ttl: 300, creation_path: 'auth/token/create' });
    expect(out.unwrapped_auth.accessor).toBe(out.wrapped.wrap_info.wrapped_accessor);
    expect(out.unwrapped_auth.policies).toEqual(['default']);
    expect(out.new_token_works).toBe(true);
    expect(out.second_unwrap).toMatch(/wrapping token is not valid/);
    expect(out.wrap_info).toMatchObject({ ttl: 120, creation_path: 'sys/wrapping/wrap' });
    expect(out.lookup).toMatchObject({ creation_path: 'sys/wrapping/wrap', creation_ttl: 120 });
    expect(out.unwrapped_data).toEqual({ user: 'svc', password: 'hunter2' });
    expect(out.rewrapped_ttl).toBe(60);
    expect(out.rewrapped_data).toEqual({ k: 'v' });
    expect(out.bad_ttl).toMatch(/wrap TTL/);
  });
});

describe('wrapping in an engine function', () => {
  it('wraps PKI answers (a root CA, an issued key) the same way', async () => {
    const pki = await createTestService({ engines: [pkiEngine] });
    const gen = await call(pki.app, 'POST', '/v1/pki/root/generate/internal', {
      token: pki.root,
      headers: WRAP('10m'),
      body: { common_name: 'Wrapped Root', key_type: 'ec', ttl: '8760h' },
    });
    expect(gen.status).toBe(200);
    expect(gen.json!.data).toBeNull();
    expect(gen.json!.wrap_info).toMatchObject({ ttl: 600, creation_path: 'pki/root/generate/internal' });
    const root = await call(pki.app, 'POST', '/v1/sys/wrapping/unwrap', { token: gen.json!.wrap_info.token });
    expect(root.json!.data.certificate).toMatch(/BEGIN CERTIFICATE/);

    await call(pki.app, 'POST', '/v1/pki/roles/web', {
      token: pki.root,
      body: { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec' },
    });
    const issued = await call(pki.app, 'POST', '/v1/pki/issue/web', {
      token: pki.root,
      headers: WRAP('60'),
      body: { common_name: 'a.example.com', ttl: '1h' },
    });
    expect(issued.json!.data).toBeNull();
    expect(issued.text).not.toMatch(/PRIVATE KEY/);
    const leaf = await call(pki.app, 'POST', '/v1/sys/wrapping/unwrap', { token: issued.json!.wrap_info.token });
    expect(leaf.json!.data.private_key).toMatch(/PRIVATE KEY/);
    const pem = await call(pki.app, 'GET', '/v1/pki/ca/pem', { headers: WRAP('60') });
    expect(pem.text).toMatch(/BEGIN CERTIFICATE/);
  });
});
