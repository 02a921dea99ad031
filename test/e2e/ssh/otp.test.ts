import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { sweep } from '../../../lib/sys/sweeper';
import type { TestService } from '../../helpers/service';
import { call, sshService, writeRole } from './setup';

let svc: TestService;
let clock = Date.now();

beforeAll(async () => {
  svc = await sshService({ now: () => clock });
  await writeRole(svc, 'otp', {
    key_type: 'otp',
    default_user: 'ubuntu',
    cidr_list: '10.0.0.0/8,fd00::/8',
    exclude_cidr_list: '10.9.0.0/16',
    allowed_users: 'deploy',
    port: 2222,
  });
});

const creds = (role: string, body: Record<string, unknown>) => call(svc.app, 'POST', `/v1/ssh/creds/${role}`, { token: svc.root, body });
const verify = (otp: string) => call(svc.app, 'POST', '/v1/ssh/verify', { body: { otp } });

describe('otp creds and verify', () => {
  it('issues a one-time key with a lease; verify (no token) answers once, then refuses', async () => {
    const r = await creds('otp', { ip: '10.1.2.3' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ renewable: false, data: { ip: '10.1.2.3', key_type: 'otp', port: 2222, username: 'ubuntu' } });
    expect(r.json!.lease_id).toMatch(/^ssh\/creds\/otp\//);
    expect(r.json!.lease_duration).toBe(svc.deps.mounts.find((m) => m.path === 'ssh')!.defaultLeaseTtl);
    const otp = r.json!.data.key as string;
    expect(otp).toMatch(/^[0-9a-f-]{36}$/);
    const first = await verify(otp);
    expect(first).toMatchObject({ status: 200, json: { data: { ip: '10.1.2.3', username: 'ubuntu', role_name: 'otp' } } });
    expect(await verify(otp)).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
    expect(await verify('not-an-otp')).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
  });

  it("answers the SSH helper's verify-echo-request self-check (no token) with verify-echo-response", async () => {
    const r = await verify('verify-echo-request');
    expect(r).toMatchObject({ status: 200, json: { data: { message: 'verify-echo-response' } } });
    expect(Object.keys(r.json!.data)).toEqual(['message']);
  });

  it('gives exactly one success to 50 concurrent verifications', async () => {
    const otp = (await creds('otp', { ip: '10.0.0.7', username: 'deploy' })).json!.data.key as string;
    const results = await Promise.all(Array.from({ length: 50 }, () => verify(otp)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400 && r.json!.errors[0] === 'OTP not found')).toHaveLength(49);
    expect(results.find((r) => r.status === 200)!.json!.data.username).toBe('deploy');
  });

  it('revoking the lease deletes the OTP', async () => {
    const r = await creds('otp', { ip: 'fd00::5' });
    const revoked = await call(svc.app, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: r.json!.lease_id } });
    expect(revoked.status).toBe(204);
    expect(await verify(r.json!.data.key)).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
  });

  it('an expired OTP is refused, and the sweeper deletes it', async () => {
    const r = await creds('otp', { ip: '10.0.0.8' });
    clock += (r.json!.lease_duration + 5) * 1000;
    await sweep(svc.deps, 5000);
    await expect(svc.deps.leases.lookup(r.json!.lease_id)).rejects.toThrow('invalid lease');
    expect(await verify(r.json!.data.key)).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
    const again = await creds('otp', { ip: '10.0.0.8' });
    clock += (again.json!.lease_duration + 5) * 1000; // expired, not yet swept
    expect(await verify(again.json!.data.key)).toMatchObject({ status: 400, json: { errors: ['OTP not found'] } });
  });

  it('stores OTPs only as salted hashes: a scan of the raw table finds none', async () => {
    const otps: string[] = [];
    for (let i = 0; i < 3; i++) otps.push((await creds('otp', { ip: '10.0.0.9' })).json!.data.key);
    const items = await svc.client.send(new ScanCommand({ TableName: svc.table }));
    const raw = JSON.stringify(items.Items);
    for (const otp of otps) {
      expect(raw).not.toContain(otp);
      expect(raw).not.toContain(otp.replaceAll('-', ''));
    }
    expect(raw).toContain('"otp/');
  });

  it.each([
    ['an IP outside cidr_list', { ip: '192.168.1.1' }, /IP 192.168.1.1 does not belong to role "otp"/],
    ['an IP inside exclude_cidr_list', { ip: '10.9.1.1' }, /IP 10.9.1.1 is in the exclude_cidr_list of role "otp"/],
    ['a malformed IP', { ip: '10.0.0.300' }, /invalid IP address "10.0.0.300"/],
    ['a missing IP', {}, /missing required field "ip"/],
    ['an unlisted user', { ip: '10.0.0.1', username: 'root' }, /username "root" is not allowed by role/],
    ['an IP of the wrong type', { ip: { a: 1 } }, /field "ip": expected a string/],
  ])('refuses %s', async (_w, body, message) => {
    const before = (await svc.deps.leases.list('ssh/creds/otp/')).length;
    const r = await creds('otp', body);
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(message);
    expect((await svc.deps.leases.list('ssh/creds/otp/')).length).toBe(before);
  });

  it('refuses creds of an unknown role and of a ca role', async () => {
    expect(await creds('nope', { ip: '10.0.0.1' })).toMatchObject({ status: 400, json: { errors: ['unknown role: nope'] } });
    await writeRole(svc, 'ca', { key_type: 'ca', allow_user_certificates: true });
    expect((await creds('ca', { ip: '10.0.0.1' })).json!.errors[0]).toMatch(/is a ca role: use sign\/ca/);
  });

  it('verify is refused without an otp', async () => {
    const r = await call(svc.app, 'POST', '/v1/ssh/verify', { body: {} });
    expect(r).toMatchObject({ status: 400, json: { errors: ['missing required field "otp"'] } });
  });
});

describe('zero-address roles and lookup', () => {
  const zero = () => call(svc.app, 'GET', '/v1/ssh/config/zeroaddress', { token: svc.root });
  const setZero = (roles: string) => call(svc.app, 'POST', '/v1/ssh/config/zeroaddress', { token: svc.root, body: { roles } });
  const lookup = async (ip: string) => (await call(svc.app, 'POST', '/v1/ssh/lookup', { token: svc.root, body: { ip } })).json!.data.roles;
  const NOT_LISTED = 'does not belong to role "anywhere": it has no cidr_list and is not listed in config/zeroaddress';

  it('accepts a role without cidr_list (as Vault), which issues for no IP until listed in config/zeroaddress, then for any', async () => {
    expect((await zero()).status).toBe(404);
    const noCidr = await call(svc.app, 'POST', '/v1/ssh/roles/anywhere', { token: svc.root, body: { key_type: 'otp', default_user: 'u' } });
    expect(noCidr.status).toBe(204);
    expect((await call(svc.app, 'GET', '/v1/ssh/roles/anywhere', { token: svc.root })).json!.data).toMatchObject({ cidr_list: '' });
    const leases = (await svc.deps.leases.list('ssh/creds/anywhere/')).length;
    expect(await creds('anywhere', { ip: '203.0.113.9' })).toMatchObject({
      status: 400,
      json: { errors: [`IP 203.0.113.9 ${NOT_LISTED}`] },
    });
    expect((await svc.deps.leases.list('ssh/creds/anywhere/')).length).toBe(leases);
    expect(await lookup('203.0.113.9')).toEqual([]);

    // Only existing roles can be listed (as Vault).
    expect(await setZero('anywhere,other')).toMatchObject({ status: 400, json: { errors: ['role "other" does not exist'] } });
    expect((await zero()).status).toBe(404);
    await writeRole(svc, 'other', {
      key_type: 'otp',
      default_user: 'u',
      cidr_list: '198.51.100.0/24',
      exclude_cidr_list: '0.0.0.0/0,::/0',
    });
    expect((await setZero('anywhere,other')).status).toBe(204);
    expect((await zero()).json!.data.roles).toEqual(['anywhere', 'other']);
    await writeRole(svc, 'anywhere', { key_type: 'otp', default_user: 'u', exclude_cidr_list: '172.16.0.0/12' });
    for (const ip of ['203.0.113.9', '2001:db8::9']) {
      const r = await creds('anywhere', { ip });
      expect(r).toMatchObject({ status: 200, json: { data: { ip, username: 'u', key_type: 'otp' } } });
      expect(await verify(r.json!.data.key)).toMatchObject({ status: 200, json: { data: { ip, username: 'u', role_name: 'anywhere' } } });
    }
    expect(await creds('anywhere', { ip: '172.16.0.1' })).toMatchObject({
      status: 400,
      json: { errors: ['IP 172.16.0.1 is in the exclude_cidr_list of role "anywhere"'] },
    });

    expect(await lookup('10.1.1.1')).toEqual(['anywhere', 'otp']);
    expect(await lookup('10.9.1.1')).toEqual(['anywhere']);
    expect(await lookup('203.0.113.9')).toEqual(['anywhere']);
    expect(await lookup('172.16.0.1')).toEqual([]);
    const bad = await call(svc.app, 'POST', '/v1/ssh/lookup', { token: svc.root, body: { ip: 'nope' } });
    expect(bad).toMatchObject({ status: 400, json: { errors: ['invalid IP address "nope"'] } });
  });

  it('deleting a role takes it out of config/zeroaddress: a new role of that name gets no grant', async () => {
    expect((await zero()).json!.data.roles).toEqual(['anywhere', 'other']);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/roles/anywhere', { token: svc.root })).status).toBe(204);
    expect((await zero()).json!.data.roles).toEqual(['other']);
    await writeRole(svc, 'anywhere', { key_type: 'otp', default_user: 'u' });
    expect(await creds('anywhere', { ip: '203.0.113.9' })).toMatchObject({
      status: 400,
      json: { errors: [`IP 203.0.113.9 ${NOT_LISTED}`] },
    });
    expect(await lookup('203.0.113.9')).toEqual([]);
    // The list still works: the role can be listed again, and the other one kept its grant.
    expect((await setZero('anywhere,other')).status).toBe(204);
    expect((await creds('anywhere', { ip: '203.0.113.9' })).status).toBe(200);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/roles/other', { token: svc.root })).status).toBe(204);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/roles/anywhere', { token: svc.root })).status).toBe(204);
    expect((await zero()).status).toBe(404);
  });

  it('config/zeroaddress delete drops every grant; a bad role name is refused', async () => {
    await writeRole(svc, 'anywhere', { key_type: 'otp', default_user: 'u' });
    expect((await setZero('anywhere')).status).toBe(204);
    expect((await creds('anywhere', { ip: '192.0.2.1' })).status).toBe(200);
    expect((await call(svc.app, 'DELETE', '/v1/ssh/config/zeroaddress', { token: svc.root })).status).toBe(204);
    expect((await zero()).status).toBe(404);
    expect(await creds('anywhere', { ip: '192.0.2.1' })).toMatchObject({ status: 400, json: { errors: [`IP 192.0.2.1 ${NOT_LISTED}`] } });
    expect((await setZero('bad name!')).status).toBe(400);
    expect(await setZero('')).toMatchObject({ status: 400, json: { errors: ['missing roles'] } });
  });
});
