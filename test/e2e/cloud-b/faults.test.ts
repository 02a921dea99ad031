/**
 * No orphans: the fake fails each step of creds and of revocation in turn; after the in-request
 * undo, retries and the sweeper, the fake holds nothing Latchkey created and no lease is left.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sweep } from '../../../lib/sys/sweeper';
import { call } from '../../helpers/service';
import { cloudBBench, POLICY_DOC, type Bench } from './helpers';

let b: Bench;
let clock = Date.now();
beforeAll(async () => {
  b = await cloudBBench({ now: () => clock });
  const r = await call(b.svc.app, 'POST', '/v1/cloud-b/role/ops', {
    token: b.svc.root,
    body: { inline_policies: JSON.stringify([POLICY_DOC, POLICY_DOC]), remote_policies: ['name:ReadOnlyAccess,type:System'] },
  });
  expect(r.status).toBe(204);
});
afterAll(() => b.close());
beforeEach(() => b.fake.clearFaults());

const creds = () => call(b.svc.app, 'GET', '/v1/cloud-b/creds/ops', { token: b.svc.root });
const revoke = (id: string) => call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: id } });

async function settle() {
  b.fake.clearFaults();
  // Due leases (retries after back-off) are swept with the clock moved on.
  for (let i = 0; i < 4; i++) {
    clock += 3600_000;
    await sweep(b.svc.deps, 10_000);
  }
}

async function expectClean() {
  expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  expect(await b.svc.deps.leases.list('cloud-b/creds/')).toEqual([]);
}

const CREATE_STEPS = ['CreateUser', 'CreatePolicy', 'AttachPolicyToUser', 'CreateAccessKey'];
const REVOKE_STEPS = ['ListAccessKeys', 'DeleteAccessKey', 'ListPoliciesForUser', 'DetachPolicyFromUser', 'DeletePolicy', 'DeleteUser'];

describe('cloud-b: a failure at any creds step leaves nothing behind', () => {
  it.each(
    CREATE_STEPS.flatMap(
      (a) =>
        [
          [a, false],
          [a, true],
        ] as const,
    ),
  )('%s fails (after it ran: %s)', async (action, after) => {
    b.fake.inject({ action, status: 400, code: 'InjectedFault', after });
    const r = await creds();
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ errors: [`creating credentials: ${action} failed: InjectedFault: injected fault`] });
    await expectClean();
  });

  it('an undo that fails too is finished later (retry, sweeper)', async () => {
    b.fake.inject({ action: 'CreateAccessKey', status: 400, code: 'InjectedFault' });
    b.fake.inject({ action: 'DeleteUser', status: 400, code: 'InjectedFault' });
    expect((await creds()).status).toBe(400);
    expect(b.fake.state.leftovers().users).toHaveLength(1);
    expect(await b.svc.deps.leases.list('cloud-b/creds/')).toHaveLength(1);
    await settle();
    await expectClean();
  });

  it('a key created twice (an answer lost, then a retry) is deleted twice', async () => {
    b.fake.inject({ action: 'CreateAccessKey', status: 500, code: 'InternalError', after: true });
    const r = await creds();
    expect(r.status).toBe(200);
    expect(b.fake.state.leftovers().accessKeys).toHaveLength(2);
    expect((await revoke(r.json!.lease_id)).status).toBe(204);
    await expectClean();
  });

  it('throttling that outlasts the retries is a 429, and nothing is left', async () => {
    b.fake.inject({ action: 'AttachPolicyToUser', status: 400, code: 'Throttling.User', count: 3 });
    const r = await creds();
    expect(r.status).toBe(429);
    await expectClean();
  });
});

describe('cloud-b: a failure at any revocation step is retried until it succeeds', () => {
  it.each(REVOKE_STEPS)('%s fails', async (action) => {
    const r = await creds();
    expect(r.status).toBe(200);
    b.fake.inject({ action, status: 500, code: 'InternalError', count: 3 });
    const rv = await revoke(r.json!.lease_id);
    expect(rv.status).toBe(502);
    expect(rv.json!.errors[0]).toMatch(/it will be retried/);
    await settle();
    await expectClean();
  });
});
