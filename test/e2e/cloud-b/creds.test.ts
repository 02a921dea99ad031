import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { cloudBBench, POLICY_DOC, type Bench } from './helpers';

let b: Bench;
beforeAll(async () => {
  b = await cloudBBench();
});
afterAll(() => b.close());

const post = (path: string, body: unknown) => call(b.svc.app, 'POST', `/v1/cloud-b/${path}`, { token: b.svc.root, body });
const get = (path: string) => call(b.svc.app, 'GET', `/v1/cloud-b/${path}`, { token: b.svc.root });
const revoke = (id: string) => call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: id } });

describe('cloud-b credentials', () => {
  it('creates a RAM user with inline and remote policies and an access key; revocation deletes them all', async () => {
    const w = await post('role/ops', {
      inline_policies: JSON.stringify([POLICY_DOC]),
      remote_policies: 'name:AliyunOSSReadOnlyAccess,type:System',
      ttl: 600,
    });
    expect(w.status).toBe(204);
    const r = await get('creds/ops');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(r.json!).sort()).toEqual(['access_key', 'lease_duration', 'lease_id', 'renewable', 'secret_key']);
    expect(r.json!.lease_duration).toBe(600);
    const key = b.fake.state.keys.get(r.json!.access_key)!;
    expect(key.secret).toBe(r.json!.secret_key);
    const user = b.fake.state.users.get(key.userName)!;
    expect([...user.policies].sort()).toEqual([expect.stringMatching(/^Custom:root-ops-/), 'System:AliyunOSSReadOnlyAccess'].sort());
    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  });

  it('an assume-role role returns an STS token with its expiration', async () => {
    const role = b.fake.state.addRole('deployer');
    expect((await post('role/sts', { role_arn: role.arn })).status).toBe(204);
    const r = await get('creds/sts');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ access_key: expect.stringMatching(/^STS\./), security_token: expect.any(String), renewable: false });
    expect(r.json!.expiration).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(r.json!.expiration)).toBeGreaterThan(Date.now());
  });

  it('reads a role back in the reference shape with generated inline-policy hashes', async () => {
    await post('role/shape', {
      inline_policies: [POLICY_DOC],
      remote_policies: ['name:ReadOnlyAccess,type:System'],
      ttl: 60,
      max_ttl: 120,
    });
    const r = await get('role/shape');
    expect(r.json).toEqual({
      inline_policies: [{ hash: expect.stringMatching(/^[0-9a-f]{32}$/), policy_document: POLICY_DOC }],
      max_ttl: 120,
      remote_policies: [{ name: 'ReadOnlyAccess', type: 'System' }],
      role_arn: '',
      ttl: 60,
    });
    const l = await call(b.svc.app, 'LIST', '/v1/cloud-b/roles', { token: b.svc.root });
    expect(l.json!.keys).toEqual(expect.arrayContaining(['ops', 'shape', 'sts']));
    expect((await call(b.svc.app, 'DELETE', '/v1/cloud-b/role/shape', { token: b.svc.root })).status).toBe(204);
    expect((await get('role/shape')).status).toBe(404);
  });

  it('reads config with the access key only', async () => {
    const r = await get('config');
    expect(r.json).toEqual({ access_key: b.fake.state.root.id });
  });
});
