/** The small sys API existing clients call: policies/acl, the rules alias, mounts, seal-status, OpenAPI, token meta keys. */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runHvac } from '../../helpers/hvac';
import { call, createTestService, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;

beforeAll(async () => {
  svc = await createTestService();
});

const doc = (paths: Record<string, string[]>) =>
  JSON.stringify({ path: Object.fromEntries(Object.entries(paths).map(([p, caps]) => [p, { capabilities: caps }])) });

async function policyToken(paths: Record<string, string[]>): Promise<string> {
  const name = `p-${Math.random().toString(36).slice(2, 10)}`;
  const r = await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: doc(paths) } });
  expect(r.status).toBe(204);
  return tokenWith(svc, [name], { no_default_policy: true });
}

describe('policies', () => {
  it('sys/policy write takes rules as an alias of policy (node-vault addPolicy)', async () => {
    const t = await policyToken({ 'sys/policy/*': ['create', 'update', 'read'] });
    const w = await call(svc.app, 'PUT', '/v1/sys/policy/by-rules', { token: t, body: { rules: doc({ 'pki/*': ['read'] }) } });
    expect(w.status).toBe(204);
    const r = await call(svc.app, 'GET', '/v1/sys/policy/by-rules', { token: t });
    expect(r.json!.data).toMatchObject({ name: 'by-rules', rules: doc({ 'pki/*': ['read'] }) });
    const none = await call(svc.app, 'PUT', '/v1/sys/policy/by-rules', { token: t, body: {} });
    expect(none.status).toBe(400);
    expect(none.json!.errors[0]).toMatch(/policy/);
  });

  it('sys/policies/acl is the same store and rules as sys/policy, under its own paths', async () => {
    const t = await policyToken({ 'sys/policies/acl/*': ['create', 'update', 'read', 'delete'], 'sys/policies/acl/': ['list'] });
    const w = await call(svc.app, 'PUT', '/v1/sys/policies/acl/acl-one', { token: t, body: { policy: doc({ 'ssh/*': ['read'] }) } });
    expect(w.status).toBe(204);
    const r = await call(svc.app, 'GET', '/v1/sys/policies/acl/acl-one', { token: t });
    expect(r.json!.data).toEqual({ name: 'acl-one', policy: doc({ 'ssh/*': ['read'] }) });
    const old = await call(svc.app, 'GET', '/v1/sys/policy/acl-one', { token: svc.root });
    expect(old.json!.data.rules).toBe(doc({ 'ssh/*': ['read'] }));
    const list = await call(svc.app, 'LIST', '/v1/sys/policies/acl', { token: t });
    expect(list.status).toBe(200);
    expect(list.json!.data.keys).toEqual(expect.arrayContaining(['acl-one', 'default', 'root']));
    expect((await call(svc.app, 'GET', '/v1/sys/policy/acl-one', { token: t })).status).toBe(403);
    const bad = await call(svc.app, 'PUT', '/v1/sys/policies/acl/acl-bad', { token: t, body: { policy: '{"paths": {}}' } });
    expect(bad.status).toBe(400);
    expect((await call(svc.app, 'DELETE', '/v1/sys/policies/acl/acl-one', { token: t })).status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/sys/policies/acl/acl-one', { token: t })).status).toBe(404);
  });
});

describe('mounts', () => {
  it('sys/mounts/<path> reads one mount in the reference shape, the data also at the top level', async () => {
    const t = await policyToken({ 'sys/mounts/*': ['read'] });
    const r = await call(svc.app, 'GET', '/v1/sys/mounts/pki', { token: t });
    expect(r.status).toBe(200);
    expect(r.json!.data).toMatchObject({
      type: 'pki',
      local: false,
      seal_wrap: false,
      config: { max_lease_ttl: 87600 * 3600, force_no_cache: false },
    });
    expect(r.json!.data.accessor).toMatch(/^pki_[0-9a-f]{8}$/);
    expect(r.json!.type).toBe('pki');
    const all = await call(svc.app, 'GET', '/v1/sys/mounts', { token: svc.root });
    expect(all.json!.data['pki/']).toEqual(r.json!.data);
  });

  it('sys/mounts/<path>/tune reads the lease settings', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/mounts/pki_int/tune', { token: svc.root });
    expect(r.json!.data).toMatchObject({ default_lease_ttl: 768 * 3600, max_lease_ttl: 43800 * 3600, force_no_cache: false });
    expect(r.json!.max_lease_ttl).toBe(43800 * 3600);
  });

  it('answers an unknown mount with 400 naming it, and refuses writes: mounts are deployed as code', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/mounts/nothing/tune', { token: svc.root });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/no secret engine mount at "nothing\/"/);
    for (const [method, path] of [
      ['POST', '/v1/sys/mounts/kv'],
      ['DELETE', '/v1/sys/mounts/pki'],
      ['POST', '/v1/sys/mounts/pki/tune'],
    ] as const) {
      const w = await call(svc.app, method, path, { token: svc.root, body: method === 'POST' ? { type: 'kv' } : undefined });
      expect(w.status).toBe(405);
      expect(w.json!.errors[0]).toMatch(/deployed as code/);
    }
  });
});

describe('sys/seal-status', () => {
  it('needs no token and is always unsealed', async () => {
    const r = await call(svc.app, 'GET', '/v1/sys/seal-status');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ type: 'shamir', initialized: true, sealed: false, t: 1, n: 1, progress: 0, recovery_seal: false });
  });
});

describe('OpenAPI', () => {
  it('is also served at sys/internal/specs/openapi, with the reference extensions on the path items', async () => {
    const a = await call(svc.app, 'GET', '/v1/sys/openapi', { token: svc.root });
    const b = await call(svc.app, 'GET', '/v1/sys/internal/specs/openapi', { token: svc.root });
    expect(b.status).toBe(200);
    expect(b.json!.paths).toEqual(a.json!.paths);
    const p = b.json!.paths;
    expect(p['/sys/health']['x-vault-unauthenticated']).toBe(true);
    expect(p['/sys/seal-status']['x-vault-unauthenticated']).toBe(true);
    expect(p['/sys/wrapping/lookup']['x-vault-unauthenticated']).toBe(true);
    expect(p['/sys/wrapping/unwrap']['x-vault-unauthenticated']).toBeUndefined();
    expect(p['/sys/wrapping/rewrap']['x-vault-unauthenticated']).toBeUndefined();
    expect(p['/sys/leases/lookup/{prefix}']['x-vault-sudo']).toBe(true);
    expect(p['/sys/mounts']['x-vault-sudo']).toBeUndefined();
    expect(p['/sys/mounts']['x-vault-unauthenticated']).toBeUndefined();
  });
});

describe('token meta', () => {
  it('keeps keys such as __proto__ and constructor, through the store, with no prototype pollution', async () => {
    const body = '{"policies":["default"],"meta":{"__proto__":"p","constructor":"c","toString":"s","team":"ops"}}';
    const created = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      raw: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(200);
    const expected = JSON.parse('{"__proto__":"p","constructor":"c","toString":"s","team":"ops"}') as Record<string, string>;
    expect(Object.keys(created.json!.auth.metadata).sort()).toEqual(['__proto__', 'constructor', 'team', 'toString']);
    const look = await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token: created.json!.auth.client_token });
    expect(look.text).toContain('"__proto__":"p"');
    expect(Object.entries(look.json!.data.meta).sort()).toEqual(Object.entries(expected).sort());
    expect(({} as Record<string, unknown>).team).toBeUndefined();
    expect(Object.prototype.toString.call({})).toBe('[object Object]');
  });

  it('keeps them from key=value form too', async () => {
    const created = await call(svc.app, 'POST', '/v1/auth/token/create', {
      token: svc.root,
      body: { policies: ['default'], meta: '__proto__=x,constructor=y' },
    });
    expect(created.status).toBe(200);
    expect(created.text).toContain('"metadata":{"__proto__":"x","constructor":"y"}');
  });
});

describe('python3-hvac', () => {
  it('reads health and seal status, writes and reads policies both ways, reads mount tuning, keeps meta keys', async () => {
    const out = await runHvac(svc, join(import.meta.dirname, 'hvac_sys.py'));
    expect(out.health).toMatchObject({ initialized: true, sealed: false });
    expect(out.seal_status).toMatchObject({ sealed: false, initialized: true, t: 1, n: 1 });
    expect(out.is_sealed).toBe(false);
    expect(out.policy.name).toBe('hvac-issuer');
    expect(JSON.parse(out.policy.rules)).toEqual({ path: { 'pki/issue/*': { capabilities: ['create', 'update'] } } });
    expect(out.acl_policy.name).toBe('hvac-acl');
    expect(out.acl_list).toContain('hvac-acl');
    expect(out.policies).not.toContain('hvac-acl');
    expect(out.policies).toContain('hvac-issuer');
    expect(out.mount_tune.data).toMatchObject({ default_lease_ttl: 768 * 3600, max_lease_ttl: 43800 * 3600 });
    expect(out.mount_tune.max_lease_ttl).toBe(43800 * 3600);
    expect(out.mounts).toEqual(expect.arrayContaining(['pki/', 'pki_int/']));
    expect(out.tune_write).toMatch(/deployed as code/);
    expect(out.meta).toEqual(JSON.parse('{"__proto__": "p", "constructor": "c"}'));
  });
});

describe('data also at the top level, as the reference answers sys/mounts* and sys/policy*', () => {
  it('sys/mounts, sys/policy and capabilities-self carry it; a wrapped sys/mounts is wrapped as usual and unwraps to the envelope', async () => {
    const mounts = await call(svc.app, 'GET', '/v1/sys/mounts?pretty', { token: svc.root });
    expect(mounts.json!['pki/']).toEqual(mounts.json!.data['pki/']);
    expect(mounts.text).toContain('\n    "request_id"');
    expect((await call(svc.app, 'GET', '/v1/sys/policy', { token: svc.root })).json!.policies).toContain('root');
    expect((await call(svc.app, 'GET', '/v1/sys/policy/default', { token: svc.root })).json!.name).toBe('default');
    const caps = await call(svc.app, 'POST', '/v1/sys/capabilities-self', { token: svc.root, body: { paths: ['pki/issue/x'] } });
    expect(caps.json!.capabilities).toEqual(['root']);
    const wrapped = await call(svc.app, 'GET', '/v1/sys/mounts', { token: svc.root, headers: { 'x-vault-wrap-ttl': '1m' } });
    expect(wrapped.json!['pki/']).toBeUndefined();
    expect(wrapped.json!.wrap_info.creation_path).toBe('sys/mounts');
    const unwrapped = await call(svc.app, 'POST', '/v1/sys/wrapping/unwrap', { token: wrapped.json!.wrap_info.token });
    expect(unwrapped.json!.data['pki/']).toMatchObject({ type: 'pki' });
  });
});
