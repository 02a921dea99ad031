/** The RAM and STS actions the engine uses; "already gone" counts as done for deletions. */
import { CloudError } from '../cloud-common/cloud-error';
import { rpc, type RpcContext } from './rpc';

const gone = (e: unknown) => {
  if (!(e instanceof CloudError && e.kind === 'not-found')) throw e;
};

export async function createUser(c: RpcContext, userName: string): Promise<void> {
  await rpc(c, 'ram', 'CreateUser', { UserName: userName, DisplayName: userName, Comments: 'created by Latchkey' });
}

export async function deleteUser(c: RpcContext, userName: string): Promise<void> {
  await rpc(c, 'ram', 'DeleteUser', { UserName: userName }).catch(gone);
}

export async function createPolicy(c: RpcContext, name: string, document: string): Promise<void> {
  await rpc(c, 'ram', 'CreatePolicy', { PolicyName: name, PolicyDocument: document, Description: 'created by Latchkey' }).catch(
    (e: unknown) => {
      // A retried create after a lost answer finds its own policy there.
      if (!(e instanceof CloudError && e.code === 'EntityAlreadyExists.Policy')) throw e;
    },
  );
}

export async function deletePolicy(c: RpcContext, name: string): Promise<void> {
  await rpc(c, 'ram', 'DeletePolicy', { PolicyName: name }).catch(gone);
}

export async function attachPolicy(c: RpcContext, userName: string, name: string, type: string): Promise<void> {
  await rpc(c, 'ram', 'AttachPolicyToUser', { UserName: userName, PolicyName: name, PolicyType: type }).catch((e: unknown) => {
    if (!(e instanceof CloudError && e.code === 'EntityAlreadyExists.User.Policy')) throw e;
  });
}

export async function detachPolicy(c: RpcContext, userName: string, name: string, type: string): Promise<void> {
  await rpc(c, 'ram', 'DetachPolicyFromUser', { UserName: userName, PolicyName: name, PolicyType: type }).catch(gone);
}

/** The user's attached policies, or undefined when the user does not exist. */
export async function listUserPolicies(c: RpcContext, userName: string): Promise<{ name: string; type: string }[] | undefined> {
  const r = await rpc<{ Policies?: { Policy?: { PolicyName: string; PolicyType: string }[] } }>(c, 'ram', 'ListPoliciesForUser', {
    UserName: userName,
  }).catch((e: unknown) => (gone(e), undefined));
  return r ? (r.Policies?.Policy ?? []).map((p) => ({ name: p.PolicyName, type: p.PolicyType })) : undefined;
}

export async function createAccessKey(c: RpcContext, userName: string): Promise<{ id: string; secret: string }> {
  const r = await rpc<{ AccessKey?: { AccessKeyId?: string; AccessKeySecret?: string } }>(c, 'ram', 'CreateAccessKey', {
    UserName: userName,
  });
  if (!r.AccessKey?.AccessKeyId || !r.AccessKey.AccessKeySecret)
    throw new CloudError('server', 502, 'CreateAccessKey answered without a key');
  return { id: r.AccessKey.AccessKeyId, secret: r.AccessKey.AccessKeySecret };
}

/** The user's access key ids, or undefined when the user does not exist. */
export async function listAccessKeys(c: RpcContext, userName: string): Promise<string[] | undefined> {
  const r = await rpc<{ AccessKeys?: { AccessKey?: { AccessKeyId: string }[] } }>(c, 'ram', 'ListAccessKeys', { UserName: userName }).catch(
    (e: unknown) => (gone(e), undefined),
  );
  return r ? (r.AccessKeys?.AccessKey ?? []).map((k) => k.AccessKeyId) : undefined;
}

export async function deleteAccessKey(c: RpcContext, userName: string, id: string): Promise<void> {
  await rpc(c, 'ram', 'DeleteAccessKey', { UserName: userName, UserAccessKeyId: id }).catch(gone);
}

export interface StsCredentials {
  AccessKeyId: string;
  AccessKeySecret: string;
  SecurityToken: string;
  Expiration: string;
}

export async function assumeRole(c: RpcContext, roleArn: string, sessionName: string, seconds?: number): Promise<StsCredentials> {
  const params = { RoleArn: roleArn, RoleSessionName: sessionName, ...(seconds ? { DurationSeconds: String(seconds) } : {}) };
  const r = await rpc<{ Credentials?: StsCredentials }>(c, 'sts', 'AssumeRole', params);
  const k = r.Credentials;
  if (!k?.AccessKeyId || !k.AccessKeySecret || !k.SecurityToken || !k.Expiration)
    throw new CloudError('server', 502, 'AssumeRole answered without credentials');
  return k;
}
