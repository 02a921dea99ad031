/**
 * No orphans: the fake fails each step of creds and of revocation in turn; after the in-request
 * undo, retries and the sweeper, the fake holds nothing Latchkey created and no lease is left.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweep } from '../../../lib/sys/sweeper';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';

let b: Bench;
let clock = Date.now();
let appId = '';
beforeAll(async () => {
  b = await cloudABench({ now: () => clock });
  b.fake.state.addGroup('ops');
  const r = await call(b.svc.app, 'POST', '/v1/cloud-a/roles/dyn', {
    token: b.svc.root,
    body: { cloud_a_roles: contributor(b), cloud_a_groups: JSON.stringify([{ group_name: 'ops' }]) },
  });
  expect(r.status).toBe(204);
  appId = b.fake.state.createApplication('static-target').id;
  expect(
    (await call(b.svc.app, 'POST', '/v1/cloud-a/roles/stat', { token: b.svc.root, body: { application_object_id: appId } })).status,
  ).toBe(204);
});
afterAll(() => b.close());
beforeEach(() => b.fake.clearFaults());

const creds = (role: string) => call(b.svc.app, 'GET', `/v1/cloud-a/creds/${role}`, { token: b.svc.root });
const revoke = (id: string) => call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: id } });

async function settle() {
  b.fake.clearFaults();
  for (let i = 0; i < 4; i++) {
    clock += 3600_000;
    await sweep(b.svc.deps, 10_000);
  }
}

async function expectClean() {
  expect(b.fake.state.leftovers({ apps: [b.fake.root.objectId, appId] })).toEqual({
    applications: [],
    servicePrincipals: [],
    roleAssignments: [],
    groupMembers: [],
  });
  expect(b.fake.state.applications.get(appId)!.passwordCredentials).toEqual([]);
  expect(await b.svc.deps.leases.list('cloud-a/creds/')).toEqual([]);
}

const CREATE_STEPS = ['createApplication', 'createServicePrincipal', 'addPassword', 'createRoleAssignment', 'addGroupMember'];
const REVOKE_STEPS = [
  'listApplications',
  'listServicePrincipals',
  'deleteRoleAssignment',
  'removeGroupMember',
  'deleteServicePrincipal',
  'deleteApplication',
];

describe('cloud-a: a failure at any creds step leaves nothing behind', () => {
  it.each(
    CREATE_STEPS.flatMap(
      (op) =>
        [
          [op, false],
          [op, true],
        ] as const,
    ),
  )('%s fails (after it ran: %s)', async (op, after) => {
    b.fake.inject({ op, status: 400, code: 'InjectedFault', message: `injected ${op} failure`, after });
    const r = await creds('dyn');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toContain(`creating credentials: InjectedFault: injected ${op} failure`);
    await expectClean();
  });

  it('an undo that fails too is finished by the sweeper', async () => {
    b.fake.inject({ op: 'addGroupMember', status: 400, code: 'InjectedFault' });
    b.fake.inject({ op: 'deleteApplication', status: 400, code: 'InjectedFault' });
    expect((await creds('dyn')).status).toBe(400);
    expect(b.fake.state.leftovers({ apps: [b.fake.root.objectId, appId] }).applications).toHaveLength(1);
    expect(await b.svc.deps.leases.list('cloud-a/creds/')).toHaveLength(1);
    await settle();
    await expectClean();
  });

  it('the static password step failing after it ran leaves no password', async () => {
    b.fake.inject({ op: 'addPassword', status: 500, code: 'InjectedFault', after: true, count: 3 });
    expect((await creds('stat')).status).toBe(502);
    await expectClean();
  });

  it('a static password created twice (an answer lost, then a retry) is removed twice', async () => {
    b.fake.inject({ op: 'addPassword', status: 500, code: 'InjectedFault', after: true });
    const r = await creds('stat');
    expect(r.status).toBe(200);
    expect(b.fake.state.applications.get(appId)!.passwordCredentials).toHaveLength(2);
    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    await expectClean();
  });

  it('throttling that outlasts the retries is a 429, and nothing is left', async () => {
    b.fake.inject({ op: 'createServicePrincipal', status: 429, code: 'TooManyRequests', count: 3 });
    const r = await creds('dyn');
    expect(r.status).toBe(429);
    expect(r.json!.errors[0]).toMatch(/throttling/);
    await expectClean();
  });

  it('a principal not yet visible to the resource manager is retried, bounded', async () => {
    b.fake.inject({ op: 'createRoleAssignment', status: 400, code: 'PrincipalNotFound', count: 2 });
    const r = await creds('dyn');
    expect(r.status).toBe(200);
    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    await expectClean();
  });
});

describe('cloud-a: a failure at any revocation step is retried until it succeeds', () => {
  it.each(REVOKE_STEPS)('%s fails', async (op) => {
    const r = await creds('dyn');
    expect(r.status).toBe(200);
    b.fake.inject({ op, status: 500, code: 'InjectedFault', count: 3 });
    const rv = await revoke(r.json!.lease_id);
    expect(rv.status).toBe(502);
    expect(rv.json!.errors[0]).toMatch(/it will be retried/);
    expect(await b.svc.deps.leases.list('cloud-a/creds/')).toHaveLength(1);
    await settle();
    await expectClean();
  });

  it.each(['getApplication', 'removePassword'])('static revocation: %s fails', async (op) => {
    const r = await creds('stat');
    b.fake.inject({ op, status: 500, code: 'InjectedFault', count: 3 });
    // Without a recorded key id the revoker looks the password up by its name.
    if (op === 'getApplication') {
      const lease = await b.svc.deps.leases.lookup(r.json!.lease_id);
      await b.svc.deps.leases.update(lease.lease_id, { ...(lease.revoke as Record<string, string>), keyId: '' });
    }
    expect((await revoke(r.json!.lease_id)).status).toBe(502);
    await settle();
    await expectClean();
  });

  it('the lease expiring revokes through the sweeper', async () => {
    const r = await creds('dyn');
    expect(r.status).toBe(200);
    clock += (r.json!.lease_duration + 1) * 1000;
    await sweep(b.svc.deps, 10_000);
    await expectClean();
  });
});
