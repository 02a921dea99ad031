/** The RAM and STS actions of the cloud-B fake, with the cloud's response and error shapes. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { FakeKey, RamState } from './state';

export interface Reply {
  status: number;
  body: Record<string, unknown>;
}

export const rpcError = (status: number, code: string, message: string): Reply => ({
  status,
  body: {
    RequestId: randomUUID(),
    HostId: 'ram.aliyuncs.com',
    Code: code,
    Message: message,
    Recommend: `https://api.aliyun.com/troubleshoot?q=${code}`,
  },
});
const ok = (body: Record<string, unknown>): Reply => ({ status: 200, body: { RequestId: randomUUID(), ...body } });
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

type P = Record<string, string>;
type Action = (s: RamState, p: P, caller: FakeKey) => Reply;

function need(p: P, ...names: string[]): Reply | undefined {
  for (const n of names)
    if (!p[n])
      return rpcError(
        400,
        `MissingParameter.${n}`,
        `The input parameter "${n}" that is mandatory for processing this request is not supplied.`,
      );
  return undefined;
}
const noUser = (n: string) => rpcError(404, 'EntityNotExist.User', `The user does not exist: ${n}.`);

function policyOf(s: RamState, p: P) {
  return s.policies.get(`${p.PolicyType}:${p.PolicyName}`);
}

const RAM: Record<string, Action> = {
  CreateUser: (s, p) => {
    if (!/^[\w.@-]{1,64}$/.test(p.UserName ?? ''))
      return rpcError(400, 'InvalidParameter.UserName.InvalidChars', 'The parameter "UserName" contains invalid chars.');
    if (s.users.has(p.UserName!)) return rpcError(409, 'EntityAlreadyExists.User', `The user already exists: ${p.UserName}.`);
    const u = {
      UserId: String(Date.now()) + randomBytes(2).toString('hex'),
      UserName: p.UserName!,
      DisplayName: p.DisplayName ?? p.UserName!,
      CreateDate: now(),
      policies: new Set<string>(),
    };
    s.users.set(u.UserName, u);
    return ok({ User: { UserId: u.UserId, UserName: u.UserName, DisplayName: u.DisplayName, CreateDate: u.CreateDate } });
  },
  GetUser: (s, p) => {
    const u = s.users.get(p.UserName ?? '');
    return u
      ? ok({ User: { UserId: u.UserId, UserName: u.UserName, DisplayName: u.DisplayName, CreateDate: u.CreateDate } })
      : noUser(p.UserName ?? '');
  },
  DeleteUser: (s, p) => {
    const u = s.users.get(p.UserName ?? '');
    if (!u) return noUser(p.UserName ?? '');
    if ([...s.keys.values()].some((k) => k.userName === u.UserName))
      return rpcError(409, 'DeleteConflict.User.AccessKey', 'The user has access keys.');
    if (u.policies.size) return rpcError(409, 'DeleteConflict.User.Policy', 'The user has attached policies.');
    s.users.delete(u.UserName);
    return ok({});
  },
  CreatePolicy: (s, p) => {
    const missing = need(p, 'PolicyName', 'PolicyDocument');
    if (missing) return missing;
    if (!/^[A-Za-z0-9-]{1,128}$/.test(p.PolicyName!))
      return rpcError(400, 'InvalidParameter.PolicyName.InvalidChars', 'The parameter "PolicyName" contains invalid chars.');
    let doc: unknown;
    try {
      doc = JSON.parse(p.PolicyDocument!);
    } catch {
      doc = undefined;
    }
    if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as { Statement?: unknown }).Statement)) {
      return rpcError(400, 'MalformedPolicyDocument', 'The policy document is malformed.');
    }
    if (s.policies.has(`Custom:${p.PolicyName}`))
      return rpcError(409, 'EntityAlreadyExists.Policy', `The policy already exists: ${p.PolicyName}.`);
    s.policies.set(`Custom:${p.PolicyName}`, {
      PolicyName: p.PolicyName!,
      PolicyType: 'Custom',
      Description: p.Description ?? '',
      document: p.PolicyDocument!,
    });
    return ok({
      Policy: { PolicyName: p.PolicyName, PolicyType: 'Custom', Description: p.Description ?? '', DefaultVersion: 'v1', CreateDate: now() },
    });
  },
  DeletePolicy: (s, p) => {
    const key = `Custom:${p.PolicyName}`;
    if (!s.policies.has(key)) return rpcError(404, 'EntityNotExist.Policy', `The policy does not exist: ${p.PolicyName}.`);
    if ([...s.users.values()].some((u) => u.policies.has(key)))
      return rpcError(409, 'DeleteConflict.Policy.User', 'The policy is attached to users.');
    s.policies.delete(key);
    return ok({});
  },
  AttachPolicyToUser: (s, p) => {
    const missing = need(p, 'PolicyType', 'PolicyName', 'UserName');
    if (missing) return missing;
    if (!['System', 'Custom'].includes(p.PolicyType!))
      return rpcError(400, 'InvalidParameter.PolicyType', 'The parameter "PolicyType" is invalid.');
    const u = s.users.get(p.UserName!);
    if (!u) return noUser(p.UserName!);
    if (!policyOf(s, p)) return rpcError(404, 'EntityNotExist.Policy', `The policy does not exist: ${p.PolicyName}.`);
    const key = `${p.PolicyType}:${p.PolicyName}`;
    if (u.policies.has(key)) return rpcError(409, 'EntityAlreadyExists.User.Policy', 'The policy is already attached to the user.');
    u.policies.add(key);
    return ok({});
  },
  DetachPolicyFromUser: (s, p) => {
    const u = s.users.get(p.UserName ?? '');
    if (!u) return noUser(p.UserName ?? '');
    if (!u.policies.delete(`${p.PolicyType}:${p.PolicyName}`))
      return rpcError(404, 'EntityNotExist.User.Policy', 'The policy is not attached to the user.');
    return ok({});
  },
  ListPoliciesForUser: (s, p) => {
    const u = s.users.get(p.UserName ?? '');
    if (!u) return noUser(p.UserName ?? '');
    const Policy = [...u.policies]
      .map((k) => s.policies.get(k)!)
      .map((x) => ({
        PolicyName: x.PolicyName,
        PolicyType: x.PolicyType,
        Description: x.Description,
        DefaultVersion: 'v1',
        AttachDate: now(),
      }));
    return ok({ Policies: { Policy } });
  },
  CreateAccessKey: (s, p) => {
    if (!s.users.has(p.UserName ?? '')) return noUser(p.UserName ?? '');
    const k = s.newKey(p.UserName!);
    return ok({ AccessKey: { AccessKeyId: k.id, AccessKeySecret: k.secret, Status: 'Active', CreateDate: now() } });
  },
  ListAccessKeys: (s, p) => {
    if (!s.users.has(p.UserName ?? '')) return noUser(p.UserName ?? '');
    const AccessKey = [...s.keys.values()]
      .filter((k) => k.userName === p.UserName)
      .map((k) => ({ AccessKeyId: k.id, Status: 'Active', CreateDate: now() }));
    return ok({ AccessKeys: { AccessKey } });
  },
  DeleteAccessKey: (s, p) => {
    const k = s.keys.get(p.UserAccessKeyId ?? '');
    if (!k || k.userName !== p.UserName) return rpcError(404, 'EntityNotExist.User.AccessKey', 'The access key does not exist.');
    s.keys.delete(k.id);
    return ok({});
  },
};

const STS: Record<string, Action> = {
  AssumeRole: (s, p, caller) => {
    const missing = need(p, 'RoleArn', 'RoleSessionName');
    if (missing) return missing;
    const role = s.roles.get((p.RoleArn ?? '').toLowerCase());
    if (!role) return rpcError(404, 'EntityNotExist.Role', 'The role not exists.');
    if (!role.trusted.has('*') && !role.trusted.has(caller.id))
      return rpcError(403, 'NoPermission', 'You are not authorized to do this action.');
    if (!/^[\w.@-]{2,64}$/.test(p.RoleSessionName!))
      return rpcError(400, 'InvalidParameter.RoleSessionName', 'The parameter RoleSessionName is wrongly formed.');
    const seconds = Number(p.DurationSeconds ?? 3600);
    if (!Number.isInteger(seconds) || seconds < 900 || seconds > role.maxSessionDuration) {
      return rpcError(
        400,
        'InvalidParameter.DurationSeconds',
        `The Min/Max value of DurationSeconds is 15min/${role.maxSessionDuration / 60}min.`,
      );
    }
    const expiration = Date.now() + seconds * 1000;
    const k = s.newKey('', { token: 'CAIS' + randomBytes(48).toString('base64'), expiration });
    return ok({
      AssumedRoleUser: {
        Arn: `${role.arn.replace(':role/', ':assumed-role/')}/${p.RoleSessionName}`,
        AssumedRoleId: `3${randomBytes(8).toString('hex')}:${p.RoleSessionName}`,
      },
      Credentials: {
        AccessKeyId: k.id,
        AccessKeySecret: k.secret,
        SecurityToken: k.securityToken,
        Expiration: new Date(expiration).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    });
  },
  GetCallerIdentity: (s, _p, caller) =>
    ok({
      AccountId: s.accountId,
      UserId: caller.userName ? s.users.get(caller.userName)?.UserId : s.accountId,
      Arn: caller.userName ? `acs:ram::${s.accountId}:user/${caller.userName}` : `acs:ram::${s.accountId}:root`,
      IdentityType: caller.userName ? 'RAMUser' : caller.securityToken ? 'AssumedRoleUser' : 'Account',
      PrincipalId: caller.id,
    }),
};

export const ACTIONS: Record<string, Record<string, Action>> = { '2015-05-01': RAM, '2015-04-01': STS };
