/**
 * The cloud-B fake driven by the official SDK clients (RPC style, HMAC-SHA1 signatures): if the
 * SDK and the fake agree, the fake speaks the real wire protocol, signature checks included.
 */
import * as OpenApi from '@alicloud/openapi-client';
import * as RamModule from '@alicloud/ram20150501';
import * as StsModule from '@alicloud/sts20150401';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudBFake, type CloudBFake } from './server';

type Ctor<T> = new (c: OpenApi.Config) => T;
const unwrap = <T>(m: unknown): T => ((m as { default?: { default?: T } }).default?.default ?? (m as { default?: T }).default ?? m) as T;
const Ram = unwrap<Ctor<RamModule.default>>(RamModule);
const Sts = unwrap<Ctor<StsModule.default>>(StsModule);

let fake: CloudBFake;
const config = (accessKeyId: string, accessKeySecret: string, securityToken?: string) =>
  new OpenApi.Config({
    accessKeyId,
    accessKeySecret,
    ...(securityToken ? { securityToken } : {}),
    endpoint: fake.url.replace('http://', ''),
    protocol: 'http',
    signatureAlgorithm: 'v2',
  });

beforeAll(async () => {
  fake = await startCloudBFake();
});
afterAll(() => fake.close());

describe('cloud-b fake with the official SDK', () => {
  it('runs the RAM user lifecycle the engine uses, and keeps state', async () => {
    const ram = new Ram(config(fake.state.root.id, fake.state.root.secret));
    await ram.createUser(new RamModule.CreateUserRequest({ userName: 'sdk-user' }));
    const doc = JSON.stringify({ Version: '1', Statement: [{ Effect: 'Allow', Action: 'oss:*', Resource: '*' }] });
    await ram.createPolicy(new RamModule.CreatePolicyRequest({ policyName: 'sdk-policy', policyDocument: doc }));
    await ram.attachPolicyToUser(
      new RamModule.AttachPolicyToUserRequest({ userName: 'sdk-user', policyName: 'sdk-policy', policyType: 'Custom' }),
    );
    await ram.attachPolicyToUser(
      new RamModule.AttachPolicyToUserRequest({ userName: 'sdk-user', policyName: 'ReadOnlyAccess', policyType: 'System' }),
    );
    const key = await ram.createAccessKey(new RamModule.CreateAccessKeyRequest({ userName: 'sdk-user' }));
    expect(key.body?.accessKey?.accessKeyId).toMatch(/^LTAI/);
    const keys = await ram.listAccessKeys(new RamModule.ListAccessKeysRequest({ userName: 'sdk-user' }));
    expect(keys.body?.accessKeys?.accessKey?.map((k) => k.accessKeyId)).toEqual([key.body?.accessKey?.accessKeyId]);
    const pols = await ram.listPoliciesForUser(new RamModule.ListPoliciesForUserRequest({ userName: 'sdk-user' }));
    expect(pols.body?.policies?.policy?.map((p) => p.policyName).sort()).toEqual(['ReadOnlyAccess', 'sdk-policy']);
    // The created key signs requests too.
    const sts = new Sts(config(key.body!.accessKey!.accessKeyId!, key.body!.accessKey!.accessKeySecret!));
    expect((await sts.getCallerIdentity()).body?.arn).toBe(`acs:ram::${fake.state.accountId}:user/sdk-user`);
    await expect(ram.deleteUser(new RamModule.DeleteUserRequest({ userName: 'sdk-user' }))).rejects.toMatchObject({
      code: 'DeleteConflict.User.AccessKey',
    });
    await ram.deleteAccessKey(
      new RamModule.DeleteAccessKeyRequest({ userName: 'sdk-user', userAccessKeyId: key.body!.accessKey!.accessKeyId! }),
    );
    for (const [name, type] of [
      ['sdk-policy', 'Custom'],
      ['ReadOnlyAccess', 'System'],
    ]) {
      await ram.detachPolicyFromUser(
        new RamModule.DetachPolicyFromUserRequest({ userName: 'sdk-user', policyName: name, policyType: type }),
      );
    }
    await ram.deletePolicy(new RamModule.DeletePolicyRequest({ policyName: 'sdk-policy' }));
    await ram.deleteUser(new RamModule.DeleteUserRequest({ userName: 'sdk-user' }));
    expect(fake.state.leftovers()).toEqual({ users: [], customPolicies: [], accessKeys: [] });
    await expect(ram.getUser(new RamModule.GetUserRequest({ userName: 'sdk-user' }))).rejects.toMatchObject({
      code: 'EntityNotExist.User',
      statusCode: 404,
    });
  });

  it('refuses a wrong signature and an unknown key, as the cloud does', async () => {
    const bad = new Ram(config(fake.state.root.id, 'not-the-secret'));
    await expect(bad.getUser(new RamModule.GetUserRequest({ userName: 'x' }))).rejects.toMatchObject({ code: 'SignatureDoesNotMatch' });
    const unknown = new Ram(config('LTAInope', 'whatever'));
    await expect(unknown.getUser(new RamModule.GetUserRequest({ userName: 'x' }))).rejects.toMatchObject({
      code: 'InvalidAccessKeyId.NotFound',
    });
  });

  it('assumes a role through STS and the token signs with its security token', async () => {
    const role = fake.state.addRole('sdk-role');
    const sts = new Sts(config(fake.state.root.id, fake.state.root.secret));
    const r = await sts.assumeRole(
      new StsModule.AssumeRoleRequest({ roleArn: role.arn, roleSessionName: 'sdk-session', durationSeconds: 900 }),
    );
    const c = r.body!.credentials!;
    expect(c.expiration).toMatch(/Z$/);
    const as = new Sts(config(c.accessKeyId!, c.accessKeySecret!, c.securityToken!));
    expect((await as.getCallerIdentity()).body?.identityType).toBe('AssumedRoleUser');
    await expect(
      sts.assumeRole(new StsModule.AssumeRoleRequest({ roleArn: role.arn, roleSessionName: 's', durationSeconds: 99999 })),
    ).rejects.toMatchObject({
      code: 'InvalidParameter.RoleSessionName',
    });
  });
});
