/** The state of the cloud-B fake: RAM users, policies, access keys, assumable roles, STS tokens. */
import { randomBytes } from 'node:crypto';

export interface FakeKey {
  id: string;
  secret: string;
  /** the RAM user it belongs to; "" for the account's root key */
  userName: string;
  securityToken?: string;
  expiration?: number;
}

export interface FakeUser {
  UserId: string;
  UserName: string;
  DisplayName: string;
  CreateDate: string;
  /** "Type:Name" */
  policies: Set<string>;
}

export interface FakePolicy {
  PolicyName: string;
  PolicyType: 'System' | 'Custom';
  Description: string;
  document: string;
}

export interface FakeRole {
  name: string;
  arn: string;
  maxSessionDuration: number;
  /** access key ids allowed to assume it ("*": any key of the account) */
  trusted: Set<string>;
}

export class RamState {
  readonly accountId = '1234567890123456';
  readonly users = new Map<string, FakeUser>();
  readonly policies = new Map<string, FakePolicy>();
  readonly keys = new Map<string, FakeKey>();
  readonly roles = new Map<string, FakeRole>();
  readonly nonces = new Set<string>();
  readonly root: FakeKey;

  constructor() {
    this.root = this.newKey('');
    for (const name of ['AliyunOSSReadOnlyAccess', 'AliyunECSReadOnlyAccess', 'ReadOnlyAccess']) {
      this.policies.set(`System:${name}`, { PolicyName: name, PolicyType: 'System', Description: name, document: '{}' });
    }
  }

  newKey(userName: string, sts?: { token: string; expiration: number }): FakeKey {
    const k: FakeKey = {
      id: (sts ? 'STS.' : 'LTAI') + randomBytes(12).toString('base64url').replace(/[-_]/g, 'x'),
      secret: randomBytes(22).toString('base64url').replace(/[-_]/g, 'y').slice(0, 30),
      userName,
      ...(sts ? { securityToken: sts.token, expiration: sts.expiration } : {}),
    };
    this.keys.set(k.id, k);
    return k;
  }

  addRole(name: string, trusted: string[] = ['*'], maxSessionDuration = 3600): FakeRole {
    const r = { name, arn: `acs:ram::${this.accountId}:role/${name.toLowerCase()}`, maxSessionDuration, trusted: new Set(trusted) };
    this.roles.set(r.arn, r);
    return r;
  }

  /** What a test checks: RAM objects left behind (STS keys expire by themselves). */
  leftovers() {
    return {
      users: [...this.users.keys()],
      customPolicies: [...this.policies.values()].filter((p) => p.PolicyType === 'Custom').map((p) => p.PolicyName),
      accessKeys: [...this.keys.values()].filter((k) => k.userName !== '' && !k.securityToken).map((k) => k.id),
    };
  }
}
