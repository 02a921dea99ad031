import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';

let b: Bench;
beforeAll(async () => {
  b = await cloudABench();
});
afterAll(() => b.close());

const post = (path: string, body: unknown) => call(b.svc.app, 'POST', `/v1/cloud-a/${path}`, { token: b.svc.root, body });
const get = (path: string) => call(b.svc.app, 'GET', `/v1/cloud-a/${path}`, { token: b.svc.root });

describe('cloud-a dynamic credentials', () => {
  it('creates an application and service principal, assigns roles, joins groups; revocation removes it all', async () => {
    const group = b.fake.state.addGroup('deployers');
    const w = await post('roles/deploy', {
      cloud_a_roles: contributor(b),
      cloud_a_groups: JSON.stringify([{ group_name: 'deployers' }]),
      ttl: '1h',
    });
    expect(w.status).toBe(204);
    const r = await get('creds/deploy');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 3600 });
    expect(r.json!.lease_id).toMatch(/^cloud-a\/creds\/deploy\//);
    const { client_id, client_secret } = r.json!.data;
    const app = [...b.fake.state.applications.values()].find((a) => a.appId === client_id)!;
    expect(app.displayName).toMatch(/^latchkey-deploy-/);
    // The secret works against the token endpoint, as a client would use it.
    expect(b.fake.state.authenticate(client_id, client_secret)).toMatchObject({ appId: client_id });
    const sp = [...b.fake.state.servicePrincipals.values()].find((s) => s.appId === client_id)!;
    expect([...b.fake.state.roleAssignments.values()].map((a) => a.properties.principalId)).toContain(sp.id);
    expect(group.members.has(sp.id)).toBe(true);

    const rv = await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } });
    expect(rv.status).toBe(204);
    expect(b.fake.state.leftovers({ apps: [b.fake.root.objectId] })).toEqual({
      applications: [],
      servicePrincipals: [],
      roleAssignments: [],
      groupMembers: [],
    });
  });

  it('an application_object_id role adds a password and revocation removes only that password', async () => {
    const app = b.fake.state.createApplication('existing-app');
    b.fake.state.addPassword(app, 'theirs', undefined, 0);
    expect((await post('roles/static', { application_object_id: app.id })).status).toBe(204);
    const r = await get('creds/static');
    expect(r.status).toBe(200);
    expect(r.json!.data.client_id).toBe(app.appId);
    expect(app.passwordCredentials).toHaveLength(2);
    await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } });
    expect(app.passwordCredentials.map((p) => p.displayName)).toEqual(['theirs']);
    b.fake.state.deleteApplication(app.id);
  });

  it('reads, lists and deletes roles', async () => {
    await post('roles/reader', {
      cloud_a_roles: JSON.stringify([{ role_name: 'Reader', scope: `/subscriptions/${b.fake.state.subscriptionId}` }]),
      ttl: 60,
      max_ttl: '2h',
    });
    const r = await get('roles/reader');
    expect(r.json!.data).toMatchObject({ ttl: 60, max_ttl: 7200, application_object_id: '', cloud_a_groups: [] });
    expect(r.json!.data.cloud_a_roles[0]).toMatchObject({ role_name: 'Reader', role_id: expect.stringMatching(/roleDefinitions\//) });
    const l = await call(b.svc.app, 'LIST', '/v1/cloud-a/roles', { token: b.svc.root });
    expect(l.json!.data.keys).toEqual(expect.arrayContaining(['reader', 'deploy']));
    expect((await call(b.svc.app, 'DELETE', '/v1/cloud-a/roles/reader', { token: b.svc.root })).status).toBe(204);
    expect((await get('roles/reader')).status).toBe(404);
  });
});
