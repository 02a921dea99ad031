/** The token API clients call: orphans, periodic tokens, token roles, unknown tokens. Tokens hold only the policies under test. */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;
let clock = Date.UTC(2030, 0, 1);
const HOUR = 3600 * 1000;

beforeAll(async () => {
  svc = await createTestService({ now: () => clock });
});

async function policy(name: string, paths: Record<string, string[]>) {
  const doc = { path: Object.fromEntries(Object.entries(paths).map(([p, capabilities]) => [p, { capabilities }])) };
  const r = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: JSON.stringify(doc) } });
  expect(r.status).toBe(204);
}

const post = (path: string, token: string, body: unknown = {}) => call(svc.app, 'POST', `/v1/auth/token/${path}`, { token, body });
const lookup = async (token: string) => (await post('lookup', svc.root, { token })).json!.data;

describe('orphan tokens', () => {
  it('create-orphan makes an orphan for a caller the path policy allows, without sudo', async () => {
    await policy('orphan-maker', { 'auth/token/create-orphan': ['update'] });
    const t = await tokenWith(svc, ['orphan-maker']);
    const r = await post('create-orphan', t, { policies: ['orphan-maker'], ttl: '1h' });
    expect(r.status).toBe(200);
    expect(r.json!.auth).toMatchObject({ orphan: true, policies: ['default', 'orphan-maker'] });
    expect(await lookup(r.json!.auth.client_token)).toMatchObject({ orphan: true, path: 'auth/token/create-orphan' });
  });

  it('no_parent needs sudo on auth/token/create: 403 without it, an orphan with it', async () => {
    await policy('plain-maker', { 'auth/token/create': ['update'] });
    await policy('sudo-maker', { 'auth/token/create': ['update', 'sudo'] });
    const plain = await tokenWith(svc, ['plain-maker']);
    const denied = await post('create', plain, { no_parent: true });
    expect(denied.status).toBe(400);
    expect(denied.json!.errors[0]).toMatch(/sudo privileges required to create orphan token/);
    const sudo = await tokenWith(svc, ['sudo-maker']);
    const ok = await post('create', sudo, { no_parent: true, ttl: '1h' });
    expect(ok.status).toBe(200);
    expect(ok.json!.auth.orphan).toBe(true);
    expect((await lookup(ok.json!.auth.client_token)).orphan).toBe(true);
  });

  it('a sudo caller may name policies it does not hold (as the reference), but never root', async () => {
    await policy('sudo-maker', { 'auth/token/create': ['update', 'sudo'] });
    const sudo = await tokenWith(svc, ['sudo-maker']);
    const other = await post('create', sudo, { policies: ['reader'], ttl: '1h' });
    expect(other.status).toBe(200);
    expect(other.json!.auth.policies).toEqual(['default', 'reader']);
    const root = await post('create', sudo, { policies: ['root'] });
    expect(root.status).toBe(400);
    expect(root.json!.errors[0]).toMatch(/root tokens may not be created without parent token being root/);
  });

  it('a token with limited uses cannot create tokens', async () => {
    await policy('plain-maker', { 'auth/token/create': ['update'] });
    const limited = await tokenWith(svc, ['plain-maker'], { num_uses: 5 });
    const r = await post('create', limited, {});
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/restricted use token cannot generate child tokens/);
  });

  it('revoke-orphan needs sudo; it revokes the token and leaves its children alive as orphans', async () => {
    await policy('plain-maker', { 'auth/token/create': ['update'] });
    await policy('orphaner', { 'auth/token/revoke-orphan': ['update'] });
    const parent = await tokenWith(svc, ['plain-maker']);
    const child = (await post('create', parent, { ttl: '1h' })).json!.auth.client_token as string;
    const noSudo = await tokenWith(svc, ['orphaner']);
    expect((await post('revoke-orphan', noSudo, { token: parent })).status).toBe(400);
    const r = await post('revoke-orphan', svc.root, { token: parent });
    expect(r.status).toBe(204);
    expect((await post('lookup', svc.root, { token: parent })).status).toBe(403);
    const c = await post('lookup', svc.root, { token: child });
    expect(c.status).toBe(200);
    expect(c.json!.data.orphan).toBe(true);
  });
});

describe('periodic tokens', () => {
  it('ttl is the period, and every renewal grants the period again, past the system maximum', async () => {
    const start = clock;
    try {
      const r = await post('create', svc.root, { policies: ['reader'], period: '500h', ttl: '1h' });
      expect(r.status).toBe(200);
      expect(r.json!.auth.lease_duration).toBe(500 * 3600);
      expect(r.json!.warnings ?? []).toEqual(expect.not.arrayContaining([expect.stringMatching(/capped/)]));
      const t = r.json!.auth.client_token as string;
      expect(await lookup(t)).toMatchObject({ period: 500 * 3600, ttl: 500 * 3600, renewable: true });
      for (let i = 0; i < 3; i++) {
        clock += 400 * HOUR; // 1,200 h in all: past 768 h
        const renewed = await post('renew', svc.root, { token: t, increment: '1h' });
        expect(renewed.status).toBe(200);
        expect(renewed.json!.auth.lease_duration).toBe(500 * 3600);
      }
      expect((await lookup(t)).ttl).toBe(500 * 3600);
    } finally {
      clock = start;
    }
  });

  it('a 1h period is a 1h token, not 768h', async () => {
    const r = await post('create', svc.root, { period: '1h' });
    expect(r.json!.auth.lease_duration).toBe(3600);
    expect(r.json!.warnings ?? []).toEqual([]);
    expect((await lookup(r.json!.auth.client_token)).period).toBe(3600);
  });

  it('explicit_max_ttl still ends a periodic token', async () => {
    const start = clock;
    try {
      const t = (await post('create', svc.root, { period: '1h', explicit_max_ttl: '90m' })).json!.auth.client_token as string;
      clock += 50 * 60 * 1000;
      const r = await post('renew', svc.root, { token: t });
      expect(r.json!.auth.lease_duration).toBe(40 * 60);
    } finally {
      clock = start;
    }
  });

  it('a period longer than the system maximum is capped, with a warning', async () => {
    const r = await post('create', svc.root, { period: '1000h' });
    expect(r.json!.auth.lease_duration).toBe(768 * 3600);
    expect(r.json!.warnings[0]).toMatch(/period of "1000h" exceeded the effective max_ttl of "768h"/);
  });

  it('asking for a period needs root or sudo', async () => {
    await policy('plain-maker', { 'auth/token/create': ['update'] });
    const plain = await tokenWith(svc, ['plain-maker']);
    const r = await post('create', plain, { period: '1h' });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/sudo privileges required to create periodic token/);
  });
});

describe('token roles', () => {
  it('writes, reads back in the reference shape, lists and deletes a role', async () => {
    expect((await call(svc.app, 'LIST', '/v1/auth/token/roles', { token: svc.root })).status).toBe(404);
    const w = await post('roles/ci', svc.root, {
      allowed_policies: 'Web, db',
      orphan: true,
      token_period: '2h',
      path_suffix: 'v1',
      token_num_uses: 3,
    });
    expect(w.status).toBe(204);
    const r = await call(svc.app, 'GET', '/v1/auth/token/roles/ci', { token: svc.root });
    expect(r.json!.data).toEqual({
      allowed_entity_aliases: null,
      allowed_policies: ['db', 'web'],
      allowed_policies_glob: [],
      disallowed_policies: [],
      disallowed_policies_glob: [],
      explicit_max_ttl: 0,
      name: 'ci',
      orphan: true,
      path_suffix: 'v1',
      period: 0,
      renewable: true,
      token_explicit_max_ttl: 0,
      token_max_ttl: 0,
      token_no_default_policy: false,
      token_num_uses: 3,
      token_period: 7200,
      token_ttl: 0,
      token_type: 'default-service',
    });
    // An update keeps what it does not name.
    await post('roles/ci', svc.root, { renewable: false });
    expect((await call(svc.app, 'GET', '/v1/auth/token/roles/ci', { token: svc.root })).json!.data).toMatchObject({
      renewable: false,
      orphan: true,
      token_period: 7200,
    });
    expect((await call(svc.app, 'LIST', '/v1/auth/token/roles', { token: svc.root })).json!.data.keys).toEqual(['ci']);
    expect((await call(svc.app, 'GET', '/v1/auth/token/roles?list=true', { token: svc.root })).json!.data.keys).toEqual(['ci']);
    expect((await call(svc.app, 'DELETE', '/v1/auth/token/roles/ci', { token: svc.root })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/auth/token/roles/ci', { token: svc.root })).status).toBe(404);
  });

  it('keeps the legacy period and explicit_max_ttl fields as written, and prefers the token_ ones', async () => {
    await post('roles/legacy', svc.root, { period: '1h', explicit_max_ttl: '2h' });
    const r = (await call(svc.app, 'GET', '/v1/auth/token/roles/legacy', { token: svc.root })).json!.data;
    expect(r).toMatchObject({ period: 3600, token_period: 3600, explicit_max_ttl: 7200, token_explicit_max_ttl: 7200 });
    const both = await post('roles/legacy', svc.root, { period: '1h', token_period: '3h' });
    expect(both.json!.warnings[0]).toMatch(/Both 'token_period' and deprecated 'period'/);
    expect((await call(svc.app, 'GET', '/v1/auth/token/roles/legacy', { token: svc.root })).json!.data).toMatchObject({
      period: 0,
      token_period: 10800,
    });
  });

  it('refuses restrictions it does not enforce, batch tokens and bad values with 400, storing nothing', async () => {
    for (const body of [
      { token_bound_cidrs: ['10.0.0.0/8'] },
      { bound_cidrs: '10.0.0.0/8' },
      { allowed_entity_aliases: ['a'] },
      { token_type: 'batch' },
      { token_type: 'nonsense' },
      { path_suffix: '../x' },
      { token_num_uses: -1 },
      { period: 'soon' },
    ]) {
      const r = await post('roles/strict', svc.root, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json!.errors[0]).toBeTruthy();
    }
    expect((await post('roles/bad%20name', svc.root, {})).status).toBe(400);
    expect((await call(svc.app, 'GET', '/v1/auth/token/roles/strict', { token: svc.root })).status).toBe(404);
  });

  it('a write to an existing role needs update, a new one create', async () => {
    await policy('role-creator', { 'auth/token/roles/*': ['create'] });
    await policy('role-updater', { 'auth/token/roles/*': ['update'] });
    const creator = await tokenWith(svc, ['role-creator']);
    const updater = await tokenWith(svc, ['role-updater']);
    expect((await post('roles/fresh', updater, {})).status).toBe(403);
    expect((await post('roles/fresh', creator, {})).status).toBe(204);
    expect((await post('roles/fresh', creator, { orphan: true })).status).toBe(403);
    expect((await post('roles/fresh', updater, { orphan: true })).status).toBe(204);
  });

  it("lets a caller give the role's allowed policies, which it does not hold itself, and nothing else", async () => {
    await post('roles/web', svc.root, {
      allowed_policies: ['web-read', 'web-write'],
      allowed_policies_glob: ['web-x-*'],
      disallowed_policies: ['web-write'],
    });
    await policy('web-maker', { 'auth/token/create/web': ['update'] });
    const maker = await tokenWith(svc, ['web-maker']);
    const mk = (body: unknown) => post('create/web', maker, body);
    const plain = await mk({});
    expect(plain.status).toBe(400); // the allowed set includes the disallowed web-write
    expect(plain.json!.errors[0]).toMatch(/token policy "web-write" is disallowed by this role/);
    const ok = await mk({ policies: ['web-read', 'web-x-1'], ttl: '1h' });
    expect(ok.status).toBe(200);
    expect(ok.json!.auth.policies).toEqual(['default', 'web-read', 'web-x-1']);
    expect(await lookup(ok.json!.auth.client_token)).toMatchObject({ role: 'web', path: 'auth/token/create/web', orphan: false });
    const outside = await mk({ policies: ['admin'] });
    expect(outside.status).toBe(400);
    expect(outside.json!.errors[0]).toMatch(/must be subset of the role's allowed policies/);
    expect((await mk({ policies: ['root'] })).status).toBe(400);
    expect((await post('create/nope', svc.root, {})).json!.errors[0]).toMatch(/unknown role nope/);
  });

  it('gives role tokens its orphan, period, renewable, num_uses and path suffix, for a caller without sudo', async () => {
    await post('roles/batchy', svc.root, {
      orphan: true,
      token_period: '2h',
      renewable: true,
      token_num_uses: 4,
      path_suffix: 'rev-1',
      allowed_policies: ['svc'],
    });
    await policy('batchy-maker', { 'auth/token/create/batchy': ['update'] });
    const maker = await tokenWith(svc, ['batchy-maker']);
    const r = await post('create/batchy', maker, { ttl: '10h', num_uses: 10, no_parent: false });
    expect(r.status).toBe(200);
    expect(r.json!.auth).toMatchObject({ orphan: true, lease_duration: 7200, num_uses: 4, policies: ['default', 'svc'] });
    expect(await lookup(r.json!.auth.client_token)).toMatchObject({ path: 'auth/token/create/batchy/rev-1', period: 7200, role: 'batchy' });
    await post('roles/fixed', svc.root, {
      renewable: false,
      token_explicit_max_ttl: '30m',
      token_no_default_policy: true,
      allowed_policies: ['svc'],
    });
    const fixed = await post('create/fixed', svc.root, { ttl: '2h' });
    expect(fixed.json!.auth).toMatchObject({ renewable: false, lease_duration: 1800, policies: ['svc'] });
    expect((await post('renew', svc.root, { token: fixed.json!.auth.client_token })).status).toBe(400);
  });

  it("renews a role's token with the role's current period, and not once the role is gone", async () => {
    await post('roles/gone', svc.root, { token_period: '1h' });
    const t = (await post('create/gone', svc.root, {})).json!.auth.client_token as string;
    await post('roles/gone', svc.root, { token_period: '2h' });
    expect((await post('renew', svc.root, { token: t })).json!.auth.lease_duration).toBe(7200);
    await call(svc.app, 'DELETE', '/v1/auth/token/roles/gone', { token: svc.root });
    const r = await post('renew', svc.root, { token: t });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/original token role "gone" could not be found/);
  });

  it('token_ttl is the default TTL of role tokens and token_max_ttl caps them, renewals included', async () => {
    const start = clock;
    try {
      await post('roles/short', svc.root, { token_ttl: '20m', token_max_ttl: '1h' });
      const r = await post('create/short', svc.root, {});
      expect(r.json!.auth.lease_duration).toBe(1200);
      const t = r.json!.auth.client_token as string;
      expect((await post('create/short', svc.root, { ttl: '5h' })).json!.auth.lease_duration).toBe(3600);
      clock += 15 * 60 * 1000;
      const renewed = await post('renew', svc.root, { token: t, increment: '1h' });
      expect(renewed.json, renewed.text).toMatchObject({ auth: { lease_duration: 45 * 60 } });
    } finally {
      clock = start;
    }
  });
});

describe('unknown tokens', () => {
  const unknown = `lk.${'A'.repeat(43)}`;

  it('lookup answers 403 "bad token"', async () => {
    for (const token of [unknown, 'garbage']) {
      const r = await post('lookup', svc.root, { token });
      expect(r.status).toBe(403);
      expect(r.json!.errors).toEqual(['bad token']);
    }
  });

  it('renew, revoke and revoke-orphan answer as the reference does', async () => {
    expect((await post('renew', svc.root, { token: 'garbage' })).json).toEqual({ errors: ['bad token'] });
    expect((await post('renew', svc.root, { token: unknown })).json).toEqual({ errors: ['token not found'] });
    expect((await post('revoke', svc.root, { token: 'garbage' })).status).toBe(403);
    expect((await post('revoke', svc.root, { token: unknown })).status).toBe(204);
    expect((await post('revoke-orphan', svc.root, { token: unknown })).json).toEqual({ errors: ['token to revoke not found'] });
  });

  it('renew-accessor renews without answering the token', async () => {
    const r = (await post('create', svc.root, { policies: ['reader'], ttl: '1h' })).json!.auth;
    const renewed = await post('renew-accessor', svc.root, { accessor: r.accessor, increment: '30m' });
    expect(renewed.json!.auth).toMatchObject({ client_token: '', accessor: r.accessor, lease_duration: 1800 });
    expect((await post('renew-accessor', svc.root, { accessor: 'nope' })).json).toEqual({ errors: ['invalid accessor'] });
  });

  it('lookup without a token looks up the caller', async () => {
    const t = await tokenWith(svc, ['default'], { ttl: '1h' });
    await policy('self-lookup', { 'auth/token/lookup': ['read', 'update'] });
    const u = await tokenWith(svc, ['self-lookup'], { ttl: '1h' });
    expect((await call(svc.app, 'GET', '/v1/auth/token/lookup', { token: u })).json!.data.id).toBe(u);
    expect((await post('lookup', u, {})).json!.data.id).toBe(u);
    expect((await post('lookup', t, { token: u })).status).toBe(403);
  });
});
