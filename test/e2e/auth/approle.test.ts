/**
 * The approle method through the app: roles, role ids, secret ids (generated, custom, looked up,
 * destroyed by value and by accessor), logins and each refusal, on a real store and, for the
 * address bindings, over real HTTP (the caller is 127.0.0.1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Served } from '../../../lib/local/http-server';
import { call, createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let server: Served;
let clock = Date.now();

const api = (method: string, path: string, body?: unknown, token?: string) =>
  call(svc.app, method, `/v1/auth/approle/${path}`, { token: token ?? svc.root, ...(body !== undefined ? { body } : {}) });

/** Over the socket, so that the request carries the caller's address. */
async function wire(method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${server.url}/v1/${path}`, {
    method,
    headers: { ...(token ? { 'x-vault-token': token } : {}), 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : undefined }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

async function role(name: string, body: Record<string, unknown> = {}) {
  const w = await api('POST', `role/${name}`, body);
  expect(w.status, w.text).toBe(204);
  const r = await api('GET', `role/${name}/role-id`);
  return r.json!.data.role_id as string;
}

async function secret(name: string, body: Record<string, unknown> = {}) {
  const r = await api('POST', `role/${name}/secret-id`, body);
  expect(r.status, r.text).toBe(200);
  return r.json!.data as { secret_id: string; secret_id_accessor: string; secret_id_ttl: number; secret_id_num_uses: number };
}

const login = (role_id: string, secret_id?: string) =>
  api('POST', 'login', { role_id, ...(secret_id !== undefined ? { secret_id } : {}) }, '');

beforeAll(async () => {
  svc = await createTestService({ now: () => clock });
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
});

describe('approle: roles', () => {
  it('creates a role with the defaults, reads it back, lists and deletes it', async () => {
    const roleId = await role('web', { token_policies: 'a,b', token_ttl: '1h', secret_id_ttl: '10m' });
    expect(roleId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const r = await api('GET', 'role/web');
    expect(r.json!.data).toMatchObject({
      bind_secret_id: true,
      secret_id_bound_cidrs: [],
      secret_id_num_uses: 0,
      secret_id_ttl: 600,
      local_secret_ids: false,
      token_policies: ['a', 'b'],
      token_ttl: 3600,
    });
    expect((await api('LIST', 'role')).json!.data.keys).toContain('web');
    expect((await api('POST', 'role/web', { secret_id_num_uses: 3 })).status).toBe(204);
    expect((await api('GET', 'role/web')).json!.data).toMatchObject({
      secret_id_num_uses: 3,
      secret_id_ttl: 600,
      token_policies: ['a', 'b'],
    });
    expect((await api('GET', 'role/web/role-id')).json!.data.role_id).toBe(roleId);
    expect((await api('DELETE', 'role/web')).status).toBe(204);
    expect((await api('GET', 'role/web')).status).toBe(404);
    expect((await login(roleId, 'x')).json!.errors).toEqual(['invalid role or secret ID']);
  });

  it('refuses bind_secret_id=false without secret_id_bound_cidrs or token_bound_cidrs', async () => {
    const r = await api('POST', 'role/nobind', { bind_secret_id: false });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/at least one constraint should be enabled on the role/);
    expect((await api('POST', 'role/nobind', { bind_secret_id: false, token_bound_cidrs: '127.0.0.1/32' })).status).toBe(204);
  });

  it('refuses local_secret_ids=true and bad CIDR blocks; folds names to lower case as Vault does', async () => {
    expect((await api('POST', 'role/loc', { local_secret_ids: true })).status).toBe(400);
    expect((await api('POST', 'role/loc', { local_secret_ids: false })).status).toBe(204);
    expect((await api('POST', 'role/loc', { local_secret_ids: false })).json!.errors[0]).toMatch(/only be modified during role creation/);
    expect((await api('POST', 'role/Upper', {})).status).toBe(204);
    expect((await api('GET', 'role/upper/role-id')).status).toBe(200);
    expect((await api('GET', 'role/UPPER')).status).toBe(200);
    expect((await api('DELETE', 'role/uPPer')).status).toBe(204);
    expect((await api('GET', 'role/upper')).status).toBe(404);
    expect((await api('POST', 'role/cidr', { secret_id_bound_cidrs: '10.0.0.0/99' })).status).toBe(400);
  });

  it('sets a custom role_id, unique across roles', async () => {
    await role('one');
    await role('two');
    expect((await api('POST', 'role/one/role-id', { role_id: 'custom-one' })).status).toBe(204);
    expect((await api('GET', 'role/one/role-id')).json!.data.role_id).toBe('custom-one');
    const taken = await api('POST', 'role/two/role-id', { role_id: 'custom-one' });
    expect(taken.status).toBe(400);
    expect(taken.json!.errors).toEqual(['role_id already in use']);
    expect((await api('POST', 'role/three', { role_id: 'custom-one' })).status).toBe(400);
    // The old role id no longer logs in; the new one does.
    const s = await secret('one');
    expect((await login('custom-one', s.secret_id)).status).toBe(200);
    expect((await api('POST', 'role/one/role-id', { role_id: 'custom-one-b' })).status).toBe(204);
    expect((await api('POST', 'role/two/role-id', { role_id: 'custom-one' })).status).toBe(204);
  });
});

describe('approle: per-field sub-paths', () => {
  it('read, write and reset one field; the role keeps the others', async () => {
    await role('fields', { token_policies: 'a', secret_id_ttl: 60 });
    expect((await api('GET', 'role/fields/policies')).json!.data).toEqual({ token_policies: ['a'], policies: ['a'] });
    expect((await api('POST', 'role/fields/policies', { policies: 'b,c' })).status).toBe(204);
    expect((await api('POST', 'role/fields/token-ttl', { token_ttl: '5m' })).status).toBe(204);
    expect((await api('GET', 'role/fields/token-ttl')).json!.data).toEqual({ token_ttl: 300 });
    expect((await api('GET', 'role/fields')).json!.data).toMatchObject({ token_policies: ['b', 'c'], token_ttl: 300, secret_id_ttl: 60 });
    expect((await api('DELETE', 'role/fields/secret-id-ttl')).status).toBe(204);
    expect((await api('GET', 'role/fields/secret-id-ttl')).json!.data).toEqual({ secret_id_ttl: 0 });
    expect((await api('GET', 'role/fields/local-secret-ids')).json!.data).toEqual({ local_secret_ids: false });
    expect((await api('POST', 'role/fields/local-secret-ids', {})).status).toBe(405);
    expect((await api('POST', 'role/fields/bind-secret-id', { bind_secret_id: false })).json!.errors[0]).toMatch(/at least one constraint/);
    expect((await api('POST', 'role/fields/token-ttl', {})).status).toBe(400);
    expect((await api('POST', 'role/nothere/token-ttl', { token_ttl: 60 })).status).toBe(404);
    expect((await api('GET', 'role/nothere/token-ttl')).status).toBe(404);
  });
});

describe('approle: secret ids and login', () => {
  it('logs in: the token has the role policies, metadata role_name and the secret id metadata, display name approle', async () => {
    const roleId = await role('app', { token_policies: 'reader', token_ttl: '20m' });
    const s = await secret('app', { metadata: JSON.stringify({ team: 'blue' }) });
    expect(s).toMatchObject({ secret_id_ttl: 0, secret_id_num_uses: 0 });
    const r = await login(roleId, s.secret_id);
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth).toMatchObject({
      policies: ['default', 'reader'],
      lease_duration: 1200,
      metadata: { role_name: 'app', team: 'blue' },
      orphan: true,
    });
    const self = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: r.json!.auth.client_token });
    expect(self.json!.data).toMatchObject({
      display_name: 'approle',
      meta: { role_name: 'app', team: 'blue' },
      path: 'auth/approle/login',
    });
  });

  it('looks up, lists, and destroys secret ids by value and by accessor', async () => {
    const roleId = await role('life');
    const a = await secret('life', { metadata: '{"k":"v"}', num_uses: 5, ttl: 300 });
    const b = await secret('life');
    const look = await api('POST', 'role/life/secret-id/lookup', { secret_id: a.secret_id });
    expect(look.json!.data).toMatchObject({
      secret_id_accessor: a.secret_id_accessor,
      secret_id_num_uses: 5,
      secret_id_ttl: 300,
      metadata: { k: 'v' },
      cidr_list: [],
    });
    const byAcc = await api('POST', 'role/life/secret-id-accessor/lookup', { secret_id_accessor: b.secret_id_accessor });
    expect(byAcc.json!.data.secret_id_accessor).toBe(b.secret_id_accessor);
    expect((await api('LIST', 'role/life/secret-id')).json!.data.keys.sort()).toEqual([a.secret_id_accessor, b.secret_id_accessor].sort());
    expect((await api('POST', 'role/life/secret-id/destroy', { secret_id: a.secret_id })).status).toBe(204);
    expect((await login(roleId, a.secret_id)).json!.errors).toEqual(['invalid role or secret ID']);
    expect((await api('POST', 'role/life/secret-id/lookup', { secret_id: a.secret_id })).status).toBe(204);
    expect((await api('POST', 'role/life/secret-id-accessor/destroy', { secret_id_accessor: b.secret_id_accessor })).status).toBe(204);
    expect((await login(roleId, b.secret_id)).status).toBe(400);
    expect((await api('POST', 'role/life/secret-id-accessor/lookup', { secret_id_accessor: b.secret_id_accessor })).status).toBe(404);
    expect((await api('LIST', 'role/life/secret-id')).status).toBe(404);
  });

  it('custom-secret-id: registers the given secret id once', async () => {
    const roleId = await role('custom');
    const r = await api('POST', 'role/custom/custom-secret-id', { secret_id: 'my-own-secret-value' });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.data.secret_id).toBe('my-own-secret-value');
    expect((await api('POST', 'role/custom/custom-secret-id', { secret_id: 'my-own-secret-value' })).status).toBe(400);
    expect((await login(roleId, 'my-own-secret-value')).status).toBe(200);
  });

  it('refuses a wrong secret id, a wrong role id, a missing one, and a secret id of another role', async () => {
    const roleId = await role('refuse');
    await role('other');
    const mine = await secret('refuse');
    const theirs = await secret('other');
    for (const [rid, sid] of [
      [roleId, 'not-a-secret-id'],
      ['not-a-role-id', mine.secret_id],
      [roleId, theirs.secret_id],
    ] as const) {
      const r = await login(rid, sid);
      expect(r.status).toBe(400);
      expect(r.json!.errors).toEqual(['invalid role or secret ID']);
    }
    expect((await login(roleId)).json!.errors).toEqual(['missing secret_id']);
    expect((await login('')).json!.errors).toEqual(['missing role_id']);
    expect((await login(roleId, mine.secret_id)).status).toBe(200);
  });

  it('refuses an expired secret id, and removes it', async () => {
    const roleId = await role('exp', { secret_id_ttl: 60 });
    const s = await secret('exp');
    expect(s.secret_id_ttl).toBe(60);
    expect((await api('POST', 'role/exp/secret-id', { ttl: 120 })).status).toBe(400);
    clock += 61_000;
    const r = await login(roleId, s.secret_id);
    expect(r.status).toBe(400);
    expect(r.json!.errors).toEqual(['invalid role or secret ID']);
    expect((await api('POST', 'role/exp/secret-id-accessor/lookup', { secret_id_accessor: s.secret_id_accessor })).status).toBe(404);
  });

  it('tidy/secret-id removes expired secret ids', async () => {
    await role('tidy', { secret_id_ttl: 30 });
    const s = await secret('tidy');
    clock += 31_000;
    const r = await api('POST', 'tidy/secret-id');
    expect(r.status).toBe(202);
    expect((await api('POST', 'role/tidy/secret-id-accessor/lookup', { secret_id_accessor: s.secret_id_accessor })).status).toBe(404);
  });

  it('refuses a secret id once its uses are spent', async () => {
    const roleId = await role('uses', { secret_id_num_uses: 2 });
    const s = await secret('uses');
    expect(s.secret_id_num_uses).toBe(2);
    expect((await api('POST', 'role/uses/secret-id', { num_uses: 3 })).status).toBe(400);
    expect((await login(roleId, s.secret_id)).status).toBe(200);
    expect((await api('POST', 'role/uses/secret-id/lookup', { secret_id: s.secret_id })).json!.data.secret_id_num_uses).toBe(1);
    expect((await login(roleId, s.secret_id)).status).toBe(200);
    const r = await login(roleId, s.secret_id);
    expect(r.status).toBe(400);
    expect(r.json!.errors).toEqual(['invalid role or secret ID']);
  });
});

describe('approle: address bindings (over HTTP, from 127.0.0.1)', () => {
  it('secret_id_bound_cidrs on the role: 10.0.0.0/8 refused, 127.0.0.0/8 allowed', async () => {
    const far = await role('far', { secret_id_bound_cidrs: '10.0.0.0/8' });
    const sFar = await secret('far');
    const r = await wire('POST', 'auth/approle/login', { role_id: far, secret_id: sFar.secret_id });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/unauthorized by CIDR restrictions on the role/);
    const near = await role('near', { secret_id_bound_cidrs: '127.0.0.0/8' });
    const sNear = await secret('near');
    expect((await wire('POST', 'auth/approle/login', { role_id: near, secret_id: sNear.secret_id })).status).toBe(200);
    // Without a known address (app.request), a bound login is refused.
    expect((await login(near, sNear.secret_id)).status).toBe(400);
  });

  it("the secret id's cidr_list, within the role's", async () => {
    const rid = await role('seccidr', { secret_id_bound_cidrs: '10.0.0.0/8,127.0.0.0/8' });
    expect((await api('POST', 'role/seccidr/secret-id', { cidr_list: '192.168.0.0/16' })).status).toBe(400);
    const far = await secret('seccidr', { cidr_list: '10.1.0.0/16' });
    const r = await wire('POST', 'auth/approle/login', { role_id: rid, secret_id: far.secret_id });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/unauthorized by CIDR restrictions on the secret ID/);
    const near = await secret('seccidr', { cidr_list: '127.0.0.1/32', num_uses: 1 });
    expect((await wire('POST', 'auth/approle/login', { role_id: rid, secret_id: near.secret_id })).status).toBe(200);
  });

  it('a refused address does not spend a single-use secret id', async () => {
    const rid = await role('keep', { secret_id_bound_cidrs: '10.0.0.0/8,127.0.0.0/8' });
    const s = await secret('keep', { cidr_list: '10.0.0.0/8', num_uses: 1 });
    expect((await wire('POST', 'auth/approle/login', { role_id: rid, secret_id: s.secret_id })).status).toBe(400);
    expect((await api('POST', 'role/keep/secret-id/lookup', { secret_id: s.secret_id })).json!.data.secret_id_num_uses).toBe(1);
  });

  it('token_bound_cidrs: the issued token is refused from 127.0.0.1 when bound to 10.0.0.0/8', async () => {
    const rid = await role('tokfar', { token_bound_cidrs: '10.0.0.0/8' });
    const s = await secret('tokfar');
    const r = await wire('POST', 'auth/approle/login', { role_id: rid, secret_id: s.secret_id });
    expect(r.status).toBe(200);
    expect((await wire('GET', 'auth/token/lookup-self', undefined, r.json!.auth.client_token)).status).toBe(403);
    const rid2 = await role('toknear', { token_bound_cidrs: '127.0.0.0/8' });
    const s2 = await secret('toknear');
    const ok = await wire('POST', 'auth/approle/login', { role_id: rid2, secret_id: s2.secret_id });
    expect((await wire('GET', 'auth/token/lookup-self', undefined, ok.json!.auth.client_token)).status).toBe(200);
  });

  it("a secret id's token_bound_cidrs override the role's", async () => {
    const rid = await role('tokover', { token_bound_cidrs: '10.0.0.0/8,127.0.0.0/8' });
    const s = await secret('tokover', { token_bound_cidrs: '10.0.0.0/8' });
    const r = await wire('POST', 'auth/approle/login', { role_id: rid, secret_id: s.secret_id });
    expect(r.status).toBe(200);
    expect((await wire('GET', 'auth/token/lookup-self', undefined, r.json!.auth.client_token)).status).toBe(403);
  });

  it('bind_secret_id=false: the role id alone logs in from within secret_id_bound_cidrs', async () => {
    const rid = await role('nosecret', { bind_secret_id: false, secret_id_bound_cidrs: '127.0.0.0/8' });
    expect((await api('POST', 'role/nosecret/secret-id')).status).toBe(400);
    expect((await wire('POST', 'auth/approle/login', { role_id: rid })).status).toBe(200);
  });
});
