/**
 * Issuing cloud-B credentials. For a policy role: a RAM user, its inline policies (created)
 * and remote ones (attached), then an access key; the lease is written first and names all of
 * them, so a failure at any step (here, or a crash) is undone by revocation or the sweeper.
 * For a role ARN: an STS token from AssumeRole, which expires by itself.
 */
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps';
import type { MountRef } from '../http/path';
import type { LeaseRecord } from '../sys/leases';
import { toDomainError } from '../cloud-common/cloud-error';
import { finishIssuingLease, openIssuingLease } from '../cloud-common/issuing-lease';
import { leaseTtl } from '../cloud-common/lease-ttl';
import { logError } from '../log';
import { attachPolicy, assumeRole, createAccessKey, createPolicy, createUser } from './ram';
import type { UserRecord } from './records';
import type { Role } from './role';
import type { RpcContext } from './rpc';

export interface Issued {
  accessKey: string;
  secretKey: string;
  securityToken?: string;
  expiration?: string;
  leaseId: string;
  ttl: number;
  /** RAM user keys renew up to the role's max_ttl and the mount's maximum; STS tokens never. */
  renewable: boolean;
}

interface Ctx {
  deps: Deps;
  mount: MountRef;
  rpc: RpcContext;
  roleName: string;
  role: Role;
  displayName: string;
  /** The accessor of the calling token: the leases are its. */
  owner: string;
}

/** `<display name>-<role>-<unix time>-<random>`, at most `max` characters, in the cloud's alphabet. */
export function generatedName(displayName: string, roleName: string, now: number, max: number): string {
  const tail = `${Math.floor(now / 1000)}-${randomBytes(3).toString('hex')}`;
  const head = `${displayName}-${roleName}`.replace(/[^A-Za-z0-9.@-]/g, '-').slice(0, max - tail.length - 1);
  return `${head}-${tail}`;
}

export async function issueCreds(c: Ctx): Promise<Issued> {
  return c.role.roleArn ? issueSts(c) : issueUser(c);
}

async function issueSts(c: Ctx): Promise<Issued> {
  // The role's ttl (within max_ttl) bounds the token; unset, the cloud's default (1h) applies.
  const wanted = c.role.maxTtl > 0 && c.role.ttl > c.role.maxTtl ? c.role.maxTtl : c.role.ttl;
  const seconds = wanted > 0 ? Math.max(900, Math.min(wanted, 43200)) : undefined;
  const k = await assumeRole(c.rpc, c.role.roleArn, generatedName(c.displayName, c.roleName, c.deps.now(), 32), seconds).catch(
    (e: unknown) => {
      throw toDomainError(e, 'assuming the role');
    },
  );
  const left = Math.max(1, Math.floor((Date.parse(k.Expiration) - c.deps.now()) / 1000));
  const lease = await c.deps.leases.create({
    mount: c.mount.path,
    engine: 'cloud-b',
    path: `creds/${c.roleName}`,
    ttl: left,
    maxTtl: left,
    renewable: false,
    revoke: { kind: 'sts' },
    owner: c.owner,
  });
  return {
    accessKey: k.AccessKeyId,
    secretKey: k.AccessKeySecret,
    securityToken: k.SecurityToken,
    expiration: k.Expiration,
    leaseId: lease.lease_id,
    ttl: left,
    renewable: false,
  };
}

function recordFor(c: Ctx): UserRecord {
  const userName = generatedName(c.displayName, c.roleName, c.deps.now(), 64);
  const policyBase = userName.replace(/[^A-Za-z0-9-]/g, '-');
  return {
    kind: 'user',
    userName,
    inlinePolicies: c.role.inlinePolicies.map((p) => `${policyBase}-${p.hash}`),
    remotePolicies: c.role.remotePolicies,
    accessKeyId: '',
  };
}

/** The write-ahead step: a provisional lease naming the user and policies the next steps create. */
export async function beginIssue(c: Ctx): Promise<{ lease: LeaseRecord; record: UserRecord }> {
  const record = recordFor(c);
  const lease = await openIssuingLease(c.deps, {
    mount: c.mount.path,
    engine: 'cloud-b',
    path: `creds/${c.roleName}`,
    revoke: record,
    owner: c.owner,
  });
  return { lease, record };
}

async function issueUser(c: Ctx): Promise<Issued> {
  const { ttl, maxTtl } = leaseTtl(c.mount, c.role.ttl, c.role.maxTtl);
  const { lease, record } = await beginIssue(c);
  const userName = record.userName;
  try {
    await createUser(c.rpc, userName);
    for (const [i, p] of c.role.inlinePolicies.entries()) {
      await createPolicy(c.rpc, record.inlinePolicies[i]!, JSON.stringify(p.policyDocument));
      await attachPolicy(c.rpc, userName, record.inlinePolicies[i]!, 'Custom');
    }
    for (const p of c.role.remotePolicies) await attachPolicy(c.rpc, userName, p.name, p.type);
    const key = await createAccessKey(c.rpc, userName);
    const revoke: UserRecord = { ...record, accessKeyId: key.id };
    const final = await finishIssuingLease(c.deps, lease, {
      mount: c.mount.path,
      engine: 'cloud-b',
      path: `creds/${c.roleName}`,
      ttl,
      maxTtl,
      renewable: true,
      revoke,
      owner: c.owner,
    });
    return {
      accessKey: key.id,
      secretKey: key.secret,
      leaseId: final.lease_id,
      ttl: final.expire_time - final.issue_time,
      renewable: final.renewable,
    };
  } catch (e) {
    await c.deps.leases
      .revoke(lease.lease_id)
      .catch((err: unknown) => logError('cloud-b-undo-deferred', { lease_id: lease.lease_id }, err));
    throw toDomainError(e, 'creating credentials');
  }
}
