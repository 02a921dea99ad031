/**
 * Cloud-A leases renew through sys/leases/renew up to the role's max_ttl and the mount's
 * max_lease_ttl, as the reference engine's do; the password's end date in the directory is
 * that same maximum, so a renewed lease never outlives its credential.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mount } from '../../../lib/config';
import { call } from '../../helpers/service';
import { cloudABench, contributor, type Bench } from './helpers';

let b: Bench;
// Real time as the start, so the fake directory (which checks end dates on real time) agrees.
let clock = Date.now();
const MOUNT: Mount = { path: 'cloud-a', type: 'cloud-a', description: '', defaultLeaseTtl: 120, maxLeaseTtl: 900 };

beforeAll(async () => {
  b = await cloudABench({ now: () => clock, mounts: [MOUNT] });
});
afterAll(() => b.close());

const post = (path: string, body: unknown) => call(b.svc.app, 'POST', `/v1/cloud-a/${path}`, { token: b.svc.root, body });
const get = (path: string) => call(b.svc.app, 'GET', `/v1/cloud-a/${path}`, { token: b.svc.root });
const renew = (lease_id: string, increment?: number) =>
  call(b.svc.app, 'PUT', '/v1/sys/leases/renew', { token: b.svc.root, body: { lease_id, ...(increment ? { increment } : {}) } });
const lookup = async (lease_id: string) =>
  (await call(b.svc.app, 'PUT', '/v1/sys/leases/lookup', { token: b.svc.root, body: { lease_id } })).json!.data;
const passwordEnd = (clientId: string) =>
  Date.parse([...b.fake.state.applications.values()].find((a) => a.appId === clientId)!.passwordCredentials.at(-1)!.endDateTime);

describe('cloud-a renewable leases', () => {
  it('a service principal renews by the increment, then up to the role max_ttl, never past its password', async () => {
    expect((await post('roles/renewing', { cloud_a_roles: contributor(b), ttl: 60, max_ttl: 300 })).status).toBe(204);
    const issued = clock;
    const r = await get('creds/renewing');
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 60 });
    const leaseId = r.json!.lease_id as string;
    const clientId = r.json!.data.client_id as string;
    expect(Math.floor(passwordEnd(clientId) / 1000)).toBe(Math.floor(issued / 1000) + 300);

    clock += 50_000;
    expect((await renew(leaseId, 120)).json).toMatchObject({ lease_id: leaseId, renewable: true, lease_duration: 120 });
    clock += 10_000;
    expect((await renew(leaseId)).json).toMatchObject({ lease_duration: 120 });
    clock += 100_000;
    // Asked for an hour at t=160s: capped at issue + max_ttl (300s), so 140s.
    expect((await renew(leaseId, 3600)).json).toMatchObject({ lease_duration: 140, renewable: true });
    const l = await lookup(leaseId);
    expect(Date.parse(l.expire_time)).toBe((Math.floor(issued / 1000) + 300) * 1000);
    expect(Date.parse(l.expire_time)).toBeLessThanOrEqual(passwordEnd(clientId));
    // The renewed credential still authenticates.
    expect(b.fake.state.authenticate(clientId, r.json!.data.client_secret)).toMatchObject({ appId: clientId });
    expect((await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: leaseId } })).status).toBe(204);
  });

  it("without a role max_ttl, the mount's max_lease_ttl caps renewal", async () => {
    expect((await post('roles/mount-capped', { cloud_a_roles: contributor(b), ttl: 100 })).status).toBe(204);
    const r = await get('creds/mount-capped');
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 100 });
    expect(Math.floor(passwordEnd(r.json!.data.client_id) / 1000)).toBe(Math.floor(clock / 1000) + MOUNT.maxLeaseTtl);
    clock += 90_000;
    // Two hours asked at t=90s: capped at the mount's 900s from issue.
    expect((await renew(r.json!.lease_id, 7200)).json).toMatchObject({ renewable: true, lease_duration: 810 });
  });

  it('a password on a role application (application_object_id) renews the same way', async () => {
    const app = b.fake.state.createApplication('renew-static');
    expect((await post('roles/static-renew', { application_object_id: app.id, ttl: 60, max_ttl: 200 })).status).toBe(204);
    const r = await get('creds/static-renew');
    expect(r.json).toMatchObject({ renewable: true, lease_duration: 60 });
    clock += 20_000;
    expect((await renew(r.json!.lease_id, 1000)).json).toMatchObject({ renewable: true, lease_duration: 180 });
    expect(Math.floor(Date.parse(app.passwordCredentials.at(-1)!.endDateTime) / 1000)).toBe(Math.floor(clock / 1000) - 20 + 200);
  });
});
