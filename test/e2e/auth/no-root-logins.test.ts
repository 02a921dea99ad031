/**
 * No login hands out root (issue 23 item 1). A delegated role administrator, a token whose only
 * policy manages the login methods' roles, cannot write an approle, aws or jwt role carrying the
 * root policy, in any spelling, on create or on update, and nothing is stored. A role that names
 * root in an older store (written straight into the method's partition, as its store class
 * writes roles) gets no token through a real login: a role id and secret id; a signed
 * sts:GetCallerIdentity answered by the STS fake; a JWT signed by the OIDC issuer fake.
 * python3-hvac's create_or_update_approle with token_policies=["root"] raises InvalidRequest.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApproleStore } from '../../../lib/auth/approle/approle-store';
import { AwsAuthStore } from '../../../lib/auth/aws/store';
import { JwtStore } from '../../../lib/auth/jwt/jwt-store';
import type { TokenSettings } from '../../../lib/auth/token-fields';
import { startIssuer, githubActionsClaims, type FakeIssuer } from '../../fakes/oidc/issuer';
import { startStsFake, type StsCredentials, type StsFake } from '../../fakes/sts/server';
import { signedLogin } from '../../fakes/sts/signed-login';
import { runHvac } from '../../helpers/hvac';
import { call, createTestService, tokenCount, tokenWith, type TestService } from '../../helpers/service';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Mount = 'approle' | 'aws' | 'jwt';

const NO_ROOT = /^auth methods cannot create root tokens/;
const ALICE = 'arn:aws:iam::123456789012:user/alice';

let svc: TestService;
let sts: StsFake;
let gh: FakeIssuer;
let alice: StsCredentials;
/** The delegated role administrator: create/update/read on every login method's roles, nothing else. */
let admin: string;

const as = (token: string, method: string, path: string, body?: unknown) =>
  call(svc.app, method, `/v1/auth/${path}`, { token, ...(body !== undefined ? { body } : {}) });

/** What a role of each method needs besides its token settings. */
const BASE: Record<Mount, Record<string, unknown>> = {
  approle: {},
  aws: { auth_type: 'iam', bound_iam_principal_arn: ALICE },
  jwt: { role_type: 'jwt', user_claim: 'sub', bound_audiences: 'https://github.com/octo-org' },
};
const MOUNTS = Object.keys(BASE) as Mount[];

/** Every way a write may name root: each field, list or comma string, any case, padded, beside others. */
const ROOT_SPELLINGS: [string, Record<string, unknown>][] = [
  ['token_policies ["root"]', { token_policies: ['root'] }],
  ['policies ["root"]', { policies: ['root'] }],
  ['token_policies "root"', { token_policies: 'root' }],
  ['policies "root"', { policies: 'root' }],
  ['token_policies "default,root"', { token_policies: 'default,root' }],
  ['policies "dev, root"', { policies: 'dev, root' }],
  ['token_policies " ROOT "', { token_policies: ' ROOT ' }],
  ['token_policies ["Root"]', { token_policies: ['Root'] }],
  ['token_policies ["dev", "rOOt"] and token_no_default_policy', { token_policies: ['dev', 'rOOt'], token_no_default_policy: true }],
];

beforeAll(async () => {
  svc = await createTestService();
  sts = await startStsFake();
  alice = sts.addUser('alice').credentials;
  gh = await startIssuer({ jwksPath: '/.well-known/jwks' });
  const rootCall = (method: string, path: string, body: unknown) => as(svc.root, method, path, body);
  const policy = { path: Object.fromEntries(MOUNTS.map((m) => [`auth/${m}/role/*`, { capabilities: ['create', 'update', 'read'] }])) };
  expect(
    (await call(svc.app, 'PUT', '/v1/sys/policy/role-admin', { token: svc.root, body: { policy: JSON.stringify(policy) } })).status,
  ).toBe(204);
  admin = await tokenWith(svc, ['role-admin']);
  expect((await rootCall('POST', 'aws/config/client', { sts_endpoint: sts.endpoint })).status).toBe(204);
  expect((await rootCall('POST', 'jwt/config', { oidc_discovery_url: gh.issuer, bound_issuer: gh.issuer })).status).toBe(204);
}, 60_000);

afterAll(async () => {
  await Promise.all([sts.close(), gh.close()]);
});

describe.each(MOUNTS)('auth/%s: a delegated role administrator cannot write a role carrying root', (mount) => {
  it('may write a role without root (the refusals below are not the ACL)', async () => {
    const w = await as(admin, 'POST', `${mount}/role/good`, { ...BASE[mount], token_policies: 'dev' });
    expect(w.status, w.text).toBe(204);
    expect((await as(admin, 'GET', `${mount}/role/good`)).json!.data.token_policies).toEqual(['dev']);
  });

  it.each(ROOT_SPELLINGS)('a new role with %s: 400 naming the rule, nothing stored', async (_label, body) => {
    const count = await tokenCount(svc);
    const w = await as(admin, 'POST', `${mount}/role/rooty`, { ...BASE[mount], ...body });
    expect(w.status, w.text).toBe(400);
    expect(w.json!.errors[0]).toMatch(NO_ROOT);
    expect((await as(admin, 'GET', `${mount}/role/rooty`)).status).toBe(404);
    expect((await as(svc.root, 'LIST', `${mount}/role`)).json?.data.keys ?? []).not.toContain('rooty');
    expect(await tokenCount(svc)).toBe(count);
  });

  it.each(ROOT_SPELLINGS)('an update of a good role with %s: 400 naming the rule, the role unchanged', async (_label, body) => {
    expect((await as(admin, 'POST', `${mount}/role/good`, { ...BASE[mount], token_policies: 'dev' })).status).toBe(204);
    const before = (await as(admin, 'GET', `${mount}/role/good`)).json!.data;
    expect(before.token_policies).toEqual(['dev']);
    const w = await as(admin, 'POST', `${mount}/role/good`, body);
    expect(w.status, w.text).toBe(400);
    expect(w.json!.errors[0]).toMatch(NO_ROOT);
    expect((await as(admin, 'GET', `${mount}/role/good`)).json!.data).toEqual(before);
  });
});

describe("auth/approle: the role's policies sub-path", () => {
  it('refuses root through role/<name>/policies in either field name; the role keeps its policies', async () => {
    for (const body of [{ policies: 'root' }, { token_policies: ['dev', 'ROOT'] }, { policies: ' Root ' }]) {
      const w = await as(admin, 'POST', 'approle/role/good/policies', body);
      expect(w.status, JSON.stringify(body)).toBe(400);
      expect(w.json!.errors[0]).toMatch(NO_ROOT);
    }
    expect((await as(admin, 'GET', 'approle/role/good/policies')).json!.data).toEqual({ token_policies: ['dev'], policies: ['dev'] });
  });
});

/**
 * Each method: a good role made through the API, its login, and the role's token settings
 * rewritten in the store as the method's own store class writes a role (an older store, before
 * roles were checked for root).
 */
interface Legacy {
  /** Makes role `name` (token_policies dev) and answers a function that logs in through it. */
  make(name: string): Promise<() => Promise<{ status: number; text: string; json?: Json | undefined }>>;
  plant(name: string, settings: Partial<TokenSettings>): Promise<void>;
}

const partition = (mount: Mount) => svc.deps.store.partition(`auth/${mount}`);

const LEGACY: Record<Mount, Legacy> = {
  approle: {
    async make(name) {
      expect((await as(svc.root, 'POST', `approle/role/${name}`, { token_policies: 'dev' })).status).toBe(204);
      const roleId = (await as(svc.root, 'GET', `approle/role/${name}/role-id`)).json!.data.role_id as string;
      const secretId = (await as(svc.root, 'POST', `approle/role/${name}/secret-id`, {})).json!.data.secret_id as string;
      return () => call(svc.app, 'POST', '/v1/auth/approle/login', { body: { role_id: roleId, secret_id: secretId } });
    },
    async plant(name, settings) {
      const store = new ApproleStore(svc.deps, partition('approle'));
      const item = (await store.role(name))!;
      await store.putRole(name, { ...item.value, token: { ...item.value.token, ...settings } }, item.version);
    },
  },
  aws: {
    async make(name) {
      expect((await as(svc.root, 'POST', `aws/role/${name}`, { ...BASE.aws, token_policies: 'dev' })).status).toBe(204);
      return () => call(svc.app, 'POST', '/v1/auth/aws/login', { body: signedLogin(alice, { role: name }) });
    },
    async plant(name, settings) {
      const store = new AwsAuthStore(partition('aws'));
      const role = (await store.role(name))!;
      await store.putRole(name, { ...role, settings: { ...role.settings, ...settings } });
    },
  },
  jwt: {
    async make(name) {
      expect((await as(svc.root, 'POST', `jwt/role/${name}`, { ...BASE.jwt, token_policies: 'dev' })).status).toBe(204);
      return async () =>
        call(svc.app, 'POST', '/v1/auth/jwt/login', { body: { role: name, jwt: await gh.sign(githubActionsClaims(gh.issuer)) } });
    },
    async plant(name, settings) {
      const store = new JwtStore(partition('jwt'));
      const role = (await store.role(name))!;
      await store.putRole(name, { ...role, token: { ...role.token, ...settings } });
    },
  },
};

/** Root as an older store may hold it: alone (the token would be exactly ["root"]) or beside others. */
const STORED: [string, string, Partial<TokenSettings>][] = [
  ['["root"] without the default policy', 'legacy-alone', { policies: ['root'], noDefaultPolicy: true }],
  ['["dev", "root"]', 'legacy-beside', { policies: ['dev', 'root'] }],
];

describe.each(MOUNTS)('auth/%s: a role naming root in an older store', (mount) => {
  it.each(STORED)('stored with %s: a real login is refused and no token is minted', async (_label, name, settings) => {
    const login = await LEGACY[mount].make(name);
    const ok = await login();
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json!.auth.policies).toEqual(['default', 'dev']);

    await LEGACY[mount].plant(name, settings);
    expect((await as(svc.root, 'GET', `${mount}/role/${name}`)).json!.data.token_policies).toEqual(settings.policies);
    const count = await tokenCount(svc);
    const r = await login();
    expect(r.status, r.text).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
    expect(r.json!.errors[0]).toMatch(NO_ROOT);
    expect(r.json!.auth).toBeUndefined();
    expect(r.text).not.toMatch(/lk\./);
    expect(await tokenCount(svc)).toBe(count);
  });

  it('the administrator cannot keep root by an update that leaves the policies alone; writing policies without it repairs the role', async () => {
    const login = await LEGACY[mount].make('repaired');
    await LEGACY[mount].plant('repaired', { policies: ['root'] });
    const keep = await as(admin, 'POST', `${mount}/role/repaired`, { token_ttl: '5m' });
    expect(keep.status, keep.text).toBe(400);
    expect(keep.json!.errors[0]).toMatch(NO_ROOT);
    expect((await as(admin, 'POST', `${mount}/role/repaired`, { token_policies: 'dev' })).status).toBe(204);
    const r = await login();
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.policies).toEqual(['default', 'dev']);
  });
});

describe('auth/jwt: a groups claim naming root grants nothing', () => {
  it('a JWT with groups ["root"] logs in without root', async () => {
    expect((await as(admin, 'POST', 'jwt/role/grouped', { ...BASE.jwt, groups_claim: 'groups', token_policies: 'dev' })).status).toBe(204);
    const jwt = await gh.sign({ ...githubActionsClaims(gh.issuer), groups: ['root', 'ROOT'] });
    const r = await call(svc.app, 'POST', '/v1/auth/jwt/login', { body: { role: 'grouped', jwt } });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.policies).toEqual(['default', 'dev']);
    expect((await call(svc.app, 'GET', '/v1/sys/policy/default', { token: r.json!.auth.client_token })).status).toBe(403);
  });
});

describe('python3-hvac: auth.approle.create_or_update_approle', () => {
  let out: Json;
  beforeAll(async () => {
    out = await runHvac(svc, join(import.meta.dirname, 'no_root_hvac.py'));
  }, 120_000);

  it('token_policies=["root"] raises InvalidRequest naming the rule, for the administrator and for root; nothing stored', () => {
    for (const key of ['admin_create', 'root_create']) {
      expect(out[key], key).toMatchObject({ error: 'InvalidRequest' });
      expect(out[key].message, key).toMatch(NO_ROOT);
    }
    expect(out.created_read).toMatchObject({ error: 'InvalidPath' });
  });

  it('an update adding root raises InvalidRequest; the role keeps its policies', () => {
    expect(out.admin_update).toMatchObject({ error: 'InvalidRequest' });
    expect(out.admin_update.message).toMatch(NO_ROOT);
    expect(out.good_policies).toEqual(['dev']);
  });
});
