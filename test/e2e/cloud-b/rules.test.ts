/** Cloud-B input rules, bad input, credential resolution order and secrets at rest. */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetMetadataCredentials } from '../../../lib/cloud-b/metadata';
import { call } from '../../helpers/service';
import { cloudBBench, POLICY_DOC, type Bench } from './helpers';

let b: Bench;
beforeAll(async () => {
  b = await cloudBBench();
});
afterAll(() => b.close());

const req = (method: string, path: string, body?: unknown) =>
  call(b.svc.app, method, `/v1/cloud-b/${path}`, { token: b.svc.root, ...(body !== undefined ? { body } : {}) });

describe('cloud-b roles: bad input', () => {
  it.each([
    [{}, 'must include an arn, or at least one of inline_policies or remote_policies'],
    [{ remote_policies: 'name:X,type:Weird' }, 'unknown policy type "Weird"'],
    [{ inline_policies: '[{' }, 'inline_policies: not valid JSON'],
    [{ inline_policies: '[1]' }, 'inline_policies: document 0 is not a JSON object'],
    [{ inline_policies: JSON.stringify([{ Statement: ['x'.repeat(7000)] }]) }, 'is over 6144 characters'],
    [{ role_arn: 'acs:ram::1:role/r', remote_policies: 'name:A,type:System' }, 'remote_policies must be blank when an arn is present'],
    [{ role_arn: 'arn:aws:iam::1:role/r' }, 'role_arn: expected acs:ram::<account id>:role/<role name>'],
    [{ remote_policies: 'name:A,type:System', ttl: 100, max_ttl: 10 }, 'ttl exceeds max_ttl'],
    [{ remote_policies: 'name:A,type:System', ttl: 'later' }, 'field "ttl"'],
    [{ remote_policies: 5 }, 'field "remote_policies"'],
  ])('refuses %j', async (body, message) => {
    const r = await req('POST', 'role/bad', body);
    expect(r.status).toBe(400);
    expect(r.json!.errors.join(' ')).toContain(message);
    expect((await req('GET', 'role/bad')).status).toBe(404);
  });

  it('refuses creds for a missing role, and says so', async () => {
    expect(await req('GET', 'creds/nope')).toMatchObject({ status: 400, json: { errors: ['role "nope" does not exist'] } });
  });

  it('a missing remote policy fails creds with the cloud error, and leaves nothing', async () => {
    await req('POST', 'role/ghost', { remote_policies: 'name:NoSuchPolicy,type:System' });
    const r = await req('GET', 'creds/ghost');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/AttachPolicyToUser failed: EntityNotExist.Policy/);
    expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  });

  it('refuses an STS role the cloud will not let the engine assume', async () => {
    const role = b.fake.state.addRole('locked', ['someone-else']);
    await req('POST', 'role/locked', { role_arn: role.arn });
    const r = await req('GET', 'creds/locked');
    expect(r).toMatchObject({
      status: 400,
      json: { errors: [expect.stringMatching(/AssumeRole failed: NoPermission.*lacks a permission/)] },
    });
  });

  it('config requires both keys and never returns the secret', async () => {
    expect(await req('POST', 'config', { access_key: 'AK' })).toMatchObject({
      status: 400,
      json: { errors: ['missing required field "secret_key"'] },
    });
    expect((await req('POST', 'config', { access_key: 'a/b', secret_key: 's' })).status).toBe(400);
    const r = await req('GET', 'config');
    expect(r.text).not.toContain(b.fake.state.root.secret);
  });
});

describe('cloud-b: odd names, huge bodies, concurrent calls', () => {
  it('refuses odd role names', async () => {
    for (const name of ['-x', 'a%20b', 'x'.repeat(200), '%E2%9C%93', 'a.']) {
      const r = await req('POST', `role/${name}`, { remote_policies: 'name:ReadOnlyAccess,type:System' });
      expect(r.status, name).toBe(400);
    }
  });

  it('refuses a body over the limit with 413, and stores nothing', async () => {
    const r = await req('POST', 'role/huge', { inline_policies: JSON.stringify([{ Statement: ['x'.repeat(1_100_000)] }]) });
    expect(r.status).toBe(413);
    expect((await req('GET', 'role/huge')).status).toBe(404);
  });

  it('issues distinct users under concurrent calls and revokes them all', async () => {
    await req('POST', 'role/many', { inline_policies: [POLICY_DOC], remote_policies: ['name:ReadOnlyAccess,type:System'] });
    const all = await Promise.all(Array.from({ length: 6 }, () => req('GET', 'creds/many')));
    expect(all.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(all.map((r) => r.json!.access_key)).size).toBe(6);
    await Promise.all(
      all.map((r) => call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } })),
    );
    expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  });
});

describe('credential resolution: environment, then configuration, then instance metadata', () => {
  it('a wrong configured secret is a clear 400 without the secret', async () => {
    await req('POST', 'config', { access_key: b.fake.state.root.id, secret_key: 'not-the-secret' });
    await req('POST', 'role/r1', { remote_policies: 'name:ReadOnlyAccess,type:System' });
    const r = await req('GET', 'creds/r1');
    expect(r.status).toBe(400);
    expect(r.json!.errors[0]).toMatch(/SignatureDoesNotMatch.*rejected the engine's credentials/);
    expect(r.text).not.toContain('not-the-secret');
  });

  it('CLOUDB_ACCESS_KEY / CLOUDB_SECRET_KEY win over the configuration', async () => {
    Object.assign(b.env, { CLOUDB_ACCESS_KEY: b.fake.state.root.id, CLOUDB_SECRET_KEY: b.fake.state.root.secret });
    const r = await req('GET', 'creds/r1');
    expect(r.status).toBe(200);
    // Revocation resolves credentials the same way.
    expect(
      (await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } })).status,
    ).toBe(204);
    delete b.env.CLOUDB_ACCESS_KEY;
    delete b.env.CLOUDB_SECRET_KEY;
  });

  it('without either, the instance role from metadata signs (with its security token)', async () => {
    expect((await req('DELETE', 'config')).status).toBe(204);
    b.fake.metadataRole = 'ecs-role';
    forgetMetadataCredentials();
    const r = await req('GET', 'creds/r1');
    expect(r.status).toBe(200);
    const used = b.fake.calls.filter((c) => c.action === 'CreateUser').pop();
    expect(used).toMatchObject({ status: 200 });
    await call(b.svc.app, 'PUT', '/v1/sys/leases/revoke', { token: b.svc.root, body: { lease_id: r.json!.lease_id } });
    expect(b.fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
  });

  it('with no source at all, a clear 400', async () => {
    b.fake.metadataRole = undefined;
    forgetMetadataCredentials();
    const r = await req('GET', 'creds/r1');
    expect(r).toMatchObject({
      status: 400,
      json: { errors: [expect.stringMatching(/no credentials: none configured, and the instance metadata service answered 404/)] },
    });
    expect((await req('POST', 'config', { access_key: b.fake.state.root.id, secret_key: b.fake.state.root.secret })).status).toBe(204);
  });
});

describe('secrets at rest', () => {
  it('neither the root secret nor issued secret keys are in the table in clear', async () => {
    await req('POST', 'role/scan', { inline_policies: [POLICY_DOC] });
    const r = await req('GET', 'creds/scan');
    expect(r.status).toBe(200);
    const items = await b.svc.client.send(new ScanCommand({ TableName: b.svc.table }));
    const raw = JSON.stringify(items.Items);
    expect(raw).toContain('cloud-b/cloud-b');
    for (const s of [b.fake.state.root.secret, r.json!.secret_key]) expect(raw).not.toContain(s);
  });
});
