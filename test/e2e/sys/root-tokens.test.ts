/**
 * Who may make a root token through auth/token/create (issue 23 item 1): a root caller, in any
 * spelling and through a token role allowing root; never a caller without root, even with sudo on
 * every create path or through a token role whose allowed policies include root. A refusal mints
 * no token.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { call, createTestService, tokenCount, tokenWith, type TestService } from '../../helpers/service';

let svc: TestService;

const post = (path: string, token: string, body: unknown = {}) => call(svc.app, 'POST', `/v1/auth/token/${path}`, { token, body });
const lookupSelf = async (token: string) => (await call(svc.app, 'GET', '/v1/auth/token/lookup-self', { token })).json!.data;

async function policy(name: string, paths: Record<string, string[]>) {
  const doc = { path: Object.fromEntries(Object.entries(paths).map(([p, capabilities]) => [p, { capabilities }])) };
  expect((await call(svc.app, 'PUT', `/v1/sys/policy/${name}`, { token: svc.root, body: { policy: JSON.stringify(doc) } })).status).toBe(
    204,
  );
}

const CREATE_PATHS = ['auth/token/create', 'auth/token/create-orphan', 'auth/token/create/*'];

beforeAll(async () => {
  svc = await createTestService();
  await policy('token-sudo', Object.fromEntries(CREATE_PATHS.map((p) => [p, ['create', 'update', 'sudo']])));
  expect((await post('roles/rooty', svc.root, { allowed_policies: 'root' })).status).toBe(204);
  expect((await post('roles/any', svc.root, { allowed_policies_glob: '*' })).status).toBe(204);
});

describe("root's auth/token/create", () => {
  it.each([[['root']], ['root'], [['ROOT']], ['default,root']])('makes a root token from policies %j', async (policies) => {
    const r = await post('create', svc.root, { policies });
    expect(r.status, r.text).toBe(200);
    expect(r.json!.auth.policies).toEqual(['root']);
    const made = r.json!.auth.client_token as string;
    expect((await lookupSelf(made)).policies).toEqual(['root']);
    // It is root: it reads what only root may, and makes root tokens in turn.
    expect((await call(svc.app, 'GET', '/v1/sys/policy/token-sudo', { token: made })).status).toBe(200);
    expect((await post('create', made, { policies: ['root'] })).status).toBe(200);
  });

  it('makes a root orphan through create-orphan, and a root token through a token role allowing root', async () => {
    const orphan = await post('create-orphan', svc.root, { policies: ['root'] });
    expect(orphan.status, orphan.text).toBe(200);
    expect(orphan.json!.auth).toMatchObject({ policies: ['root'], orphan: true });
    const viaRole = await post('create/rooty', svc.root, {});
    expect(viaRole.status, viaRole.text).toBe(200);
    expect(viaRole.json!.auth.policies).toEqual(['root']);
  });
});

describe('a caller without root', () => {
  let sudo: string;
  beforeAll(async () => {
    sudo = await tokenWith(svc, ['token-sudo']);
  });

  it.each([
    ['create', { policies: ['root'] }],
    ['create', { policies: 'ROOT' }],
    ['create', { policies: 'default, root' }],
    ['create', { policies: ['root'], no_parent: true }],
    ['create-orphan', { policies: ['root'] }],
    ['create/any', { policies: ['root'] }],
    ['create/rooty', {}],
    ['create/rooty', { policies: ['root'] }],
  ])('with sudo on every create path: %s %j is refused and mints nothing', async (path, body) => {
    const count = await tokenCount(svc);
    const r = await post(path, sudo, body);
    expect(r.status, r.text).toBe(400);
    expect(r.json!.errors[0]).toMatch(/root tokens may not be created without parent token being root/);
    expect(r.json!.auth).toBeUndefined();
    expect(await tokenCount(svc)).toBe(count);
  });

  it('with only update on the role path: a token role allowing root gives it nothing', async () => {
    await policy('rooty-maker', { 'auth/token/create/rooty': ['update'] });
    const maker = await tokenWith(svc, ['rooty-maker']);
    const count = await tokenCount(svc);
    for (const body of [{}, { policies: ['root'] }, { policies: 'Root' }]) {
      const r = await post('create/rooty', maker, body);
      expect(r.status, `${JSON.stringify(body)}: ${r.text}`).toBe(400);
      expect(r.json!.errors[0]).toMatch(/root tokens may not be created without parent token being root/);
      expect(r.json!.auth).toBeUndefined();
    }
    expect(await tokenCount(svc)).toBe(count);
  });

  it('a sudo child of root that is not root itself cannot make root either', async () => {
    const child = (await post('create', svc.root, { policies: ['token-sudo'] })).json!.auth.client_token as string;
    const r = await post('create', child, { policies: ['root'] });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/root tokens may not be created without parent token being root/);
  });
});
