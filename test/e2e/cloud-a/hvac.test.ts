/** Compatibility: Debian's python3-hvac drives both cloud engines through the local server front, unmodified. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCloudAEngine } from '../../../lib/cloud-a/engine';
import { makeCloudBEngine } from '../../../lib/cloud-b/engine';
import { listen, type Served } from '../../../lib/local/http-server';
import { startCloudAFake, type CloudAFake } from '../../fakes/cloud-a/server';
import { fakeTls } from '../../fakes/cloud-a/tls';
import { startCloudBFake, type CloudBFake } from '../../fakes/cloud-b/server';
import { createTestService, type TestService } from '../../helpers/service';

let svc: TestService;
let server: Served;
let a: CloudAFake;
let b: CloudBFake;

beforeAll(async () => {
  const tls = await fakeTls();
  a = await startCloudAFake(tls);
  b = await startCloudBFake(tls);
  const envA = { CLOUDA_AUTHORITY_URL: a.url, CLOUDA_GRAPH_URL: a.url, CLOUDA_RESOURCE_MANAGER_URL: a.url, CLOUDA_CA_CERT: tls.ca };
  const envB = { CLOUDB_RAM_ENDPOINT: b.url, CLOUDB_STS_ENDPOINT: b.url, CLOUDB_CA_CERT: tls.ca };
  svc = await createTestService({ engines: [makeCloudAEngine(() => envA), makeCloudBEngine(() => envB)] });
  server = await listen(svc.app.fetch, { port: 0 });
});

afterAll(async () => {
  await server.close();
  await a.close();
  await b.close();
});

describe('python3-hvac', () => {
  it('configures, writes roles, issues and revokes credentials on both engines', async () => {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [join(import.meta.dirname, 'hvac_cloud.py')], {
      env: {
        ...process.env,
        LATCHKEY_ADDR: server.url,
        LATCHKEY_TOKEN: svc.root,
        SUB: a.state.subscriptionId,
        TENANT: a.state.tenantId,
        CLIENT_ID: a.root.clientId,
        CLIENT_SECRET: a.root.clientSecret,
        B_KEY: b.state.root.id,
        B_SECRET: b.state.root.secret,
        PYTHONDONTWRITEBYTECODE: '1',
      },
      timeout: 120_000,
    });
    const out = JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(out.a_config).toMatchObject({
      subscription_id: a.state.subscriptionId,
      tenant_id: a.state.tenantId,
      client_id: a.root.clientId,
    });
    expect(out.a_config).not.toHaveProperty('client_secret');
    expect(out.a_roles).toEqual(['web']);
    expect(out.a_role).toMatchObject({
      ttl: 3600,
      azure_roles: [{ role_name: 'Reader', scope: `/subscriptions/${a.state.subscriptionId}` }],
      azure_groups: [],
    });
    expect(out.a_role.cloud_a_roles).toEqual(out.a_role.azure_roles);
    expect(out.a_creds.client_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.state.authenticate(out.a_creds.client_id, out.a_creds.client_secret)).not.toBe('bad-secret');
    expect(out.a_lease).toBe(3600);
    // Renewed through hvac's sys.renew_lease: by the increment, still renewable.
    expect(out.a_renewable).toBe(true);
    expect(out.a_renewed).toEqual([true, 600, true]);
    expect(out.b_renewed).toEqual([true, 300, true]);
    expect(out.a_missing).toMatch(/role "nope" does not exist/);
    expect(out.b_config).toEqual({ access_key: b.state.root.id });
    expect(out.b_role).toMatchObject({ remote_policies: [{ name: 'ReadOnlyAccess', type: 'System' }], ttl: 600, role_arn: '' });
    expect(out.b_roles).toEqual({ keys: ['ops'] });
    expect(out.b_creds).toEqual(['access_key', 'lease_duration', 'lease_id', 'renewable', 'secret_key']);
    // generate_credentials hands back only `data`: its lease is revoked here, by prefix.
    const left = await svc.deps.leases.list('cloud-a/creds/web/');
    expect(left).toHaveLength(1);
    await svc.deps.leases.revoke(`cloud-a/creds/web/${left[0]}`);
    expect(a.state.leftovers({ apps: [a.root.objectId] })).toEqual({
      applications: [],
      servicePrincipals: [],
      roleAssignments: [],
      groupMembers: [],
    });
    expect(b.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  });
});
