/**
 * Issuing cloud-B credentials. For a policy role: a RAM user, its inline policies (created)
 * and remote ones (attached), then an access key; a provisional lease is written first and
 * names all of them (SecretLeases.writeAhead), so a failure at any step (here, or a crash) is
 * undone by revocation or the sweeper. For a role ARN: an STS token from AssumeRole, which
 * expires by itself.
 */
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps';
import type { MountRef } from '../http/path';
import type { SecretLeases } from '../sys/secret-leases';
import { toDomainError } from '../cloud-common/cloud-error';
import { leaseTtl } from '../cloud-common/lease-ttl';
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
  /** The leases of the request (req.secrets): under its mount and path, owned by the calling token. */
  secrets: SecretLeases;
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
  // The answer is flat JSON, not the envelope: the lease is granted here rather than by the edge.
  const lease = await c.secrets.grant({ revoke: { kind: 'sts' }, ttl: left });
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

/** The write-ahead record: the user and policy names the steps will create, chosen before any of them exists. */
export function recordFor(c: Pick<Ctx, 'deps' | 'roleName' | 'role' | 'displayName'>): UserRecord {
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

async function issueUser(c: Ctx): Promise<Issued> {
  const { ttl, maxTtl } = leaseTtl(c.mount, c.role.ttl, c.role.maxTtl);
  const record = recordFor(c);
  const { userName } = record;
  const { lease, value: key } = await c.secrets
    .writeAhead(record, async () => {
      await createUser(c.rpc, userName);
      for (const [i, p] of c.role.inlinePolicies.entries()) {
        await createPolicy(c.rpc, record.inlinePolicies[i]!, JSON.stringify(p.policyDocument));
        await attachPolicy(c.rpc, userName, record.inlinePolicies[i]!, 'Custom');
      }
      for (const p of c.role.remotePolicies) await attachPolicy(c.rpc, userName, p.name, p.type);
      const accessKey = await createAccessKey(c.rpc, userName);
      const revoke: UserRecord = { ...record, accessKeyId: accessKey.id };
      return { terms: { revoke, ttl, maxTtl, renewable: true }, value: accessKey };
    })
    .catch((e: unknown) => {
      throw toDomainError(e, 'creating credentials');
    });
  return {
    accessKey: key.id,
    secretKey: key.secret,
    leaseId: lease.lease_id,
    ttl: lease.expire_time - lease.issue_time,
    renewable: lease.renewable,
  };
}
