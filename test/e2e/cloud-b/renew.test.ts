/**
 * Cloud-B RAM access keys renew through sys/leases/renew up to the role's max_ttl and the
 * mount's max_lease_ttl, as the reference engine's do; STS tokens expire by themselves and are
 * not renewable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mount } from '../../../lib/config';
import { call } from '../../helpers/service';
import { cloudBBench, POLICY_DOC, type Bench } from './helpers';

let b: Bench;
let clock = Date.now();
const MOUNT: Mount = { path: 'cloud-b', type: 'cloud-b', description: '', defaultLeaseTtl: 120, maxLeaseTtl: 900 };

beforeAll(async () => {
  b = await cloudBBench({ now: () => clock, mounts: [MOUNT] });
});
afterAll(() => b.close());

const post = (path: string, body: unknown) => call(b.svc.app, 'POST', `/v1/cloud-b/${path}`, { token: b.svc.root, body });
const get = (path: string) => call(b.svc.app, 'GET', `/v1/cloud-b/${path}`, { token: b.svc.root });
const renew = (lease_id: string, increment?: number) =>
  call(b.svc.app, 'PUT', '/v1/sys/leases/renew', { token: b.svc.root, body: { lease_id, ...(increment ? { increment } : {}) } });

describe('cloud-b renewable leases', () => {
  it('an access key renews by the increment, then up to the role max_ttl; the key stays until revoked', async () => {
    expect((await post('role/renewing', { inline_policies: [POLICY_DOC], ttl: 60, max_ttl: 300 })).status).toBe(204);
    const r = await get('creds/renewing');
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 60 });
    const leaseId = r.json!.lease_id as string;
    clock += 50_000;
    expect((await renew(leaseId, 120)).json).toMatchObject({ lease_id: leaseId, renewable: true, lease_duration: 120 });
    clock += 100_000;
    expect((await renew(leaseId, 3600)).json).toMatchObject({ renewable: true, lease_duration: 150 });
    expect(b.fake.state.keys.has(r.json!.access_key)).toBe(true);
    expect((await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: leaseId } })).status).toBe(204);
    expect(b.fake.state.keys.has(r.json!.access_key)).toBe(false);
  });

  it("without a role max_ttl, the mount's max_lease_ttl caps renewal", async () => {
    expect((await post('role/mount-capped', { inline_policies: [POLICY_DOC], ttl: 100 })).status).toBe(204);
    const r = await get('creds/mount-capped');
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 100 });
    clock += 90_000;
    expect((await renew(r.json!.lease_id, 7200)).json).toMatchObject({ renewable: true, lease_duration: 810 });
  });

  it('an STS token is not renewable', async () => {
    const role = b.fake.state.addRole('renew-sts');
    expect((await post('role/sts-renew', { role_arn: role.arn })).status).toBe(204);
    const r = await get('creds/sts-renew');
    expect(r.json).toMatchObject({ renewable: false });
    const refused = await renew(r.json!.lease_id, 60);
    expect(refused.status).toBe(400);
    expect(refused.json!.errors[0]).toMatch(/not renewable/);
  });
});
