/** Cloud-A input rules and bad input: clear 4xx answers, nothing half-written, no secret echoed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';

let b: Bench;
beforeAll(async () => {
  b = await cloudABench();
  b.fake.state.resourceGroups.add('rg1');
});
afterAll(() => b.close());

const req = (method: string, path: string, body?: unknown) =>
  call(b.svc.app, method, `/v1/cloud-a/${path}`, { token: b.svc.root, ...(body !== undefined ? { body } : {}) });

describe('cloud-a roles: bad input', () => {
  const sub = () => `/subscriptions/${b.fake.state.subscriptionId}`;
  it.each([
    [{}, 'either application_object_id or cloud_a_roles must be provided'],
    [{ cloud_a_groups: '[{"group_name":"ops"}]' }, 'either application_object_id or cloud_a_roles must be provided'],
    [{ cloud_a_roles: '[{oops' }, 'error parsing cloud_a_roles: not valid JSON'],
    [{ cloud_a_roles: 7 }, 'error parsing cloud_a_roles: expected a JSON array of objects'],
    [() => ({ cloud_a_roles: JSON.stringify([{ role_name: 'Nope', scope: sub() }]) }), "no role found for role_name: 'Nope'"],
    [
      () => ({
        cloud_a_roles: JSON.stringify([{ role_id: `${sub()}/providers/Microsoft.Authorization/roleDefinitions/0000`, scope: sub() }]),
      }),
      'no role found for role_id',
    ],
    [() => ({ cloud_a_roles: JSON.stringify([{ role_name: 'Reader', scope: `${sub()}/resourceGroups/missing` }]) }), 'does not exist'],
    [
      () => ({ cloud_a_roles: contributor(b), cloud_a_groups: '[{"group_name":"no-such-group"}]' }),
      "no group found for group_name: 'no-such-group'",
    ],
    [
      () => ({ cloud_a_roles: contributor(b), cloud_a_groups: '[{"object_id":"00000000-1111-2222-3333-444444444444"}]' }),
      'no group found for object_id',
    ],
    [
      () => ({
        cloud_a_roles: JSON.stringify([
          { role_name: 'Reader', scope: sub() },
          { role_name: 'Reader', scope: sub() },
        ]),
      }),
      'duplicate role_id and scope',
    ],
    [{ application_object_id: '00000000-1111-2222-3333-444444444444' }, 'no application found for application_object_id'],
    [{ application_object_id: '../../x' }, 'application_object_id is not an object id'],
    [() => ({ cloud_a_roles: contributor(b), ttl: '2h', max_ttl: '1h' }), 'ttl cannot be greater than max_ttl'],
    [() => ({ cloud_a_roles: contributor(b), ttl: 'soon' }), 'field "ttl"'],
  ])('refuses %j', async (body, message) => {
    const r = await req('POST', 'roles/bad', typeof body === 'function' ? body() : body);
    expect(r.status).toBe(400);
    expect(r.json!.errors.join(' ')).toContain(message);
    expect((await req('GET', 'roles/bad')).status).toBe(404);
  });

  it('refuses odd role names', async () => {
    for (const name of ['-x', 'a%20b', 'x'.repeat(200), 'a.', '%C3%BC']) {
      const r = await req('POST', `roles/${name}`, { cloud_a_roles: contributor(b) });
      expect(r.status, name).toBe(400);
    }
  });

  it('refuses a body over the limit with 413', async () => {
    const r = await req('POST', 'roles/huge', { cloud_a_roles: JSON.stringify([{ scope: '/s', role_name: 'x'.repeat(1_100_000) }]) });
    expect(r.status).toBe(413);
  });

  it('accepts a resource-group scope and resolves the role by name', async () => {
    const r = await req('POST', 'roles/rg', {
      cloud_a_roles: JSON.stringify([{ role_name: 'Reader', scope: `${sub()}/resourceGroups/rg1` }]),
    });
    expect(r.status).toBe(204);
  });

  it("accepts the reference plugin's azure_roles / azure_groups as aliases and reads back under both names", async () => {
    const group = b.fake.state.addGroup('alias-group');
    const w = await req('POST', 'roles/alias', {
      azure_roles: JSON.stringify([{ role_name: 'Reader', scope: sub() }]),
      azure_groups: [{ group_name: 'alias-group' }],
    });
    expect(w.status).toBe(204);
    const d = (await req('GET', 'roles/alias')).json!.data;
    expect(d.azure_roles).toEqual([{ role_name: 'Reader', role_id: expect.stringMatching(/roleDefinitions\//), scope: sub() }]);
    expect(d.azure_groups).toEqual([{ group_name: 'alias-group', object_id: group.id }]);
    expect(d.cloud_a_roles).toEqual(d.azure_roles);
    expect(d.cloud_a_groups).toEqual(d.azure_groups);
    // Written under the canonical name, read back under the alias too.
    expect((await req('POST', 'roles/alias', { cloud_a_roles: contributor(b), cloud_a_groups: '' })).status).toBe(204);
    const again = (await req('GET', 'roles/alias')).json!.data;
    expect([again.azure_roles[0].role_name, again.azure_groups]).toEqual(['Contributor', []]);
  });

  it.each([
    [
      () => ({ azure_roles: contributor(b), cloud_a_roles: contributor(b) }),
      'azure_roles is an alias of cloud_a_roles: give one of them, not both',
    ],
    [
      () => ({ cloud_a_roles: contributor(b), cloud_a_groups: '[]', azure_groups: '[]' }),
      'azure_groups is an alias of cloud_a_groups: give one of them, not both',
    ],
    [{ azure_roles: '[{oops' }, 'error parsing azure_roles: not valid JSON'],
    [{ azure_roles: '[{"role_name":"Reader"}]' }, 'azure_roles: entry 0 needs a "scope"'],
    [() => ({ azure_roles: contributor(b), azure_groups: '[{}]' }), 'azure_groups: entry 0 needs "group_name" or "object_id"'],
  ])('refuses alias misuse %#, naming the field the client used', async (body, message) => {
    const r = await req('POST', 'roles/badalias', typeof body === 'function' ? body() : body);
    expect(r).toMatchObject({ status: 400, json: { errors: [message] } });
  });

  it('warns that cloud_a_roles are ignored beside application_object_id', async () => {
    const app = b.fake.state.createApplication('warn-app');
    const r = await req('POST', 'roles/warn', { application_object_id: app.id, cloud_a_roles: contributor(b) });
    expect(r.status).toBe(200);
    expect(r.json!.warnings).toEqual(['cloud_a_roles and cloud_a_groups are ignored when application_object_id is set']);
    b.fake.state.deleteApplication(app.id);
  });

  it('answers 400 for creds of a missing role, and 404 for reading or listing nothing', async () => {
    const r = await req('GET', 'creds/missing');
    expect(r).toMatchObject({ status: 400, json: { errors: ['role "missing" does not exist'] } });
    expect((await req('GET', 'roles/missing')).status).toBe(404);
  });

  it('issues distinct principals under concurrent calls and revokes them all', async () => {
    await req('POST', 'roles/many', { cloud_a_roles: contributor(b) });
    const all = await Promise.all(Array.from({ length: 6 }, () => req('GET', 'creds/many')));
    expect(all.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(all.map((r) => r.json!.data.client_id)).size).toBe(6);
    await Promise.all(
      all.map((r) => call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } })),
    );
    expect(b.fake.state.leftovers({ apps: [b.fake.root.objectId] }).roleAssignments).toEqual([]);
  });
});

describe('cloud-a config: bad input and cloud errors', () => {
  it.each([
    [{ environment: 'MarsCloud' }, 'unknown environment "MarsCloud"'],
    [{ use_vendor_graph_api: false }, 'use_vendor_graph_api=false is not supported'],
    [{ tenant_id: 'a b' }, 'field "tenant_id": expected an identifier'],
    [{ root_password_ttl: 'forever' }, 'field "root_password_ttl"'],
    [{ client_secret: ['x'] }, 'field "client_secret"'],
  ])('refuses %j', async (body, message) => {
    const r = await req('POST', 'config', body);
    expect(r.status).toBe(400);
    expect(r.json!.errors.join(' ')).toContain(message);
  });

  it('reads the configuration back without the secret', async () => {
    const r = await req('GET', 'config');
    expect(r.json!.data).toEqual({
      subscription_id: b.fake.state.subscriptionId,
      tenant_id: b.fake.state.tenantId,
      client_id: b.fake.root.clientId,
      environment: '',
      password_policy: '',
      use_vendor_graph_api: true,
      root_password_ttl: 182 * 86400,
    });
    expect(r.text).not.toContain(b.fake.root.clientSecret);
  });

  it('a rejected root secret is a clear 400 that does not echo the secret', async () => {
    await req('POST', 'config', { client_secret: 'wrong-secret-value' });
    const r = await req('POST', 'roles/x', { cloud_a_roles: contributor(b) });
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/AADSTS7000215: Invalid client secret provided.*rejected the engine's credentials/);
    expect(r.text).not.toContain('wrong-secret-value');
    await req('POST', 'config', { client_secret: b.fake.root.clientSecret });
  });

  it('an unreachable endpoint is a clear 400', async () => {
    const saved = b.env.CLOUDA_GRAPH_URL;
    b.env.CLOUDA_GRAPH_URL = 'https://127.0.0.1:1';
    const r = await req('POST', 'roles/x', { application_object_id: 'abc' });
    b.env.CLOUDA_GRAPH_URL = saved;
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/127\.0\.0\.1:1 could not be reached \(ECONNREFUSED\)/);
  });

  it('without configuration, creds and roles say so', async () => {
    expect((await req('DELETE', 'config')).status).toBe(204);
    expect((await req('GET', 'config')).status).toBe(404);
    const r = await req('POST', 'roles/x', { cloud_a_roles: contributor(b) });
    expect(r).toMatchObject({ status: 400, json: { errors: [expect.stringMatching(/not configured/)] } });
    await req('POST', 'config', {
      subscription_id: b.fake.state.subscriptionId,
      tenant_id: b.fake.state.tenantId,
      client_id: b.fake.root.clientId,
      client_secret: b.fake.root.clientSecret,
    });
  });
});
