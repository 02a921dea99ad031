/**
 * A request that dies mid-way (a function time-out): the provisional lease written before the
 * first cloud call expires after the issuing window, and the sweeper removes what was created.
 * The engine's own saga (SecretLeases.writeAhead, with the engine's write-ahead record) runs the
 * steps and then never finishes, as a function killed at its time-out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFor as recordForA } from '../../../lib/cloud-a/creds';
import { cloudAStore } from '../../../lib/cloud-a/cloud-a-store';
import { effectiveSettings } from '../../../lib/cloud-a/config';
import { createApplication, createServicePrincipal } from '../../../lib/cloud-a/graph';
import { recordFor as recordForB } from '../../../lib/cloud-b/creds';
import { cloudBStore } from '../../../lib/cloud-b/cloud-b-store';
import { resolveCredentials } from '../../../lib/cloud-b/config';
import { createUser, createPolicy } from '../../../lib/cloud-b/ram';
import { endpointsOf } from '../../../lib/cloud-b/settings';
import type { Deps } from '../../../lib/deps';
import { mountPartition } from '../../../lib/mount-partition';
import type { Json } from '../../../lib/store/store';
import type { LeaseRecord } from '../../../lib/sys/leases';
import { ISSUING_WINDOW } from '../../../lib/sys/secret-leases';
import { sweep } from '../../../lib/sys/sweeper';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';
import { cloudBBench, POLICY_DOC, type Bench as BenchB } from '../cloud-b/helpers';

let clock = Date.now();
let a: Bench;
let b: BenchB;
beforeAll(async () => {
  a = await cloudABench({ now: () => clock });
  b = await cloudBBench({ now: () => clock });
});
afterAll(async () => {
  await a.close();
  await b.close();
});

/**
 * Issues `record` under the engine's saga as a creds request by a token-less caller would, runs
 * `steps`, then dies: the saga never settles, so neither the client's lease nor the undo of a
 * failure ever happens. Resolves with the provisional lease once the steps are done.
 */
function dieMidWay(deps: Deps, engine: string, record: Json, steps: () => Promise<void>): Promise<LeaseRecord> {
  const secrets = deps.secrets({ mount: engine, engine, path: 'creds/r', owner: '' });
  return new Promise((resolve, reject) => {
    secrets
      .writeAhead(record, async (provisional) => {
        await steps();
        resolve(provisional);
        return new Promise<never>(() => undefined);
      })
      .catch(reject);
  });
}

describe('a creds request that dies mid-way', () => {
  it('cloud-a: the application and principal it made are removed once the issuing window passes', async () => {
    expect(
      (await call(a.svc.app, 'POST', '/v1/cloud-a/roles/r', { token: a.svc.root, body: { cloud_a_roles: contributor(a) } })).status,
    ).toBe(204);
    const store = cloudAStore(mountPartition(a.svc.deps, 'cloud-a', 'cloud-a'));
    const settings = await effectiveSettings(a.svc.deps, await store.config(), () => a.env);
    const record = recordForA({ roleName: 'r', role: (await store.role('r'))! });
    if (record.kind !== 'dynamic') throw new Error('expected a dynamic record');
    // The steps run, then the process dies before recording them or answering.
    const lease = await dieMidWay(a.svc.deps, 'cloud-a', record, async () => {
      const app = await createApplication(settings, record.displayName);
      await createServicePrincipal(settings, app.appId);
    });
    expect(lease.expire_time - lease.issue_time).toBe(ISSUING_WINDOW);
    await sweep(a.svc.deps, 10_000);
    expect(a.fake.state.leftovers({ apps: [a.fake.root.objectId] }).applications).toHaveLength(1);
    clock += (ISSUING_WINDOW + 1) * 1000;
    await sweep(a.svc.deps, 10_000);
    expect(a.fake.state.leftovers({ apps: [a.fake.root.objectId] })).toEqual({
      applications: [],
      servicePrincipals: [],
      roleAssignments: [],
      groupMembers: [],
    });
    expect(await a.svc.deps.leases.list('cloud-a/creds/')).toEqual([]);
  });

  it('cloud-b: the user and policy it made are removed once the issuing window passes', async () => {
    expect(
      (await call(b.svc.app, 'POST', '/v1/cloud-b/role/r', { token: b.svc.root, body: { inline_policies: [POLICY_DOC] } })).status,
    ).toBe(204);
    const store = cloudBStore(mountPartition(b.svc.deps, 'cloud-b', 'cloud-b'));
    const endpoints = endpointsOf(() => b.env);
    const rpc = { endpoints, creds: await resolveCredentials(b.svc.deps, store, () => b.env, endpoints) };
    const record = recordForB({ deps: b.svc.deps, roleName: 'r', role: (await store.role('r'))!, displayName: 'root' });
    await dieMidWay(b.svc.deps, 'cloud-b', record, async () => {
      await createUser(rpc, record.userName);
      await createPolicy(rpc, record.inlinePolicies[0]!, JSON.stringify(POLICY_DOC));
    });
    clock += (ISSUING_WINDOW + 1) * 1000;
    await sweep(b.svc.deps, 10_000);
    expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
    expect(await b.svc.deps.leases.list('cloud-b/creds/')).toEqual([]);
  });

  it('a successful request leaves one lease with the full TTL and no provisional one', async () => {
    const r = await call(a.svc.app, 'GET', '/v1/cloud-a/creds/r', { token: a.svc.root });
    expect(r.status).toBe(200);
    expect(await a.svc.deps.leases.list('cloud-a/creds/')).toHaveLength(1);
    const lease = await a.svc.deps.leases.lookup(r.json!.lease_id);
    expect(lease.expire_time - lease.issue_time).toBe(r.json!.lease_duration);
    expect(lease.revoke).toMatchObject({ kind: 'dynamic', appObjectId: expect.any(String), spObjectId: expect.any(String) });
    clock += (ISSUING_WINDOW + 1) * 1000;
    await sweep(a.svc.deps, 10_000);
    expect(a.fake.state.leftovers({ apps: [a.fake.root.objectId] }).applications).toHaveLength(1);
  });
});
