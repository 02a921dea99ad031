/**
 * Issuing cloud-A credentials. A lease is written first with everything revocation needs to
 * find what the steps create; each step then advances it. A failure revokes at once (and the
 * sweeper retries a revocation that fails), so nothing is left behind in the cloud.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import type { LeaseRecord } from '../sys/leases';
import type { MountRef } from '../http/path';
import { CloudError, toDomainError } from '../cloud-common/cloud-error';
import { finishIssuingLease, openIssuingLease } from '../cloud-common/issuing-lease';
import { leaseTtl } from '../cloud-common/lease-ttl';
import { withRetries } from '../cloud-common/retry';
import { logError } from '../log';
import type { Settings } from './config';
import { assignmentId, createRoleAssignment } from './arm';
import { addGroupMember, addPassword, createApplication, createServicePrincipal } from './graph';
import type { DynamicRecord, StaticRecord } from './records';
import type { Role } from './role';

export interface Issued {
  clientId: string;
  clientSecret: string;
  leaseId: string;
  ttl: number;
  renewable: boolean;
}

interface Ctx {
  deps: Deps;
  mount: MountRef;
  settings: Settings;
  roleName: string;
  role: Role;
  /** The accessor of the calling token: the leases are its. */
  owner: string;
}

/** A new principal may take a moment to be visible to the resource manager: retried, bounded. */
const notYetVisible = (e: unknown) =>
  e instanceof CloudError && (e.code === 'PrincipalNotFound' || e.kind === 'throttled' || e.kind === 'server');

function recordFor(c: Ctx): DynamicRecord | StaticRecord {
  return c.role.applicationObjectId
    ? { kind: 'static', appObjectId: c.role.applicationObjectId, passwordName: `latchkey-${randomUUID()}`, keyId: '' }
    : {
        kind: 'dynamic',
        displayName: `latchkey-${c.roleName.slice(0, 40)}-${randomUUID()}`,
        appObjectId: '',
        appId: '',
        spObjectId: '',
        assignments: c.role.cloudARoles.map((r) => assignmentId(r.scope, randomUUID())),
        groups: c.role.cloudAGroups.map((g) => g.objectId),
      };
}

/** The write-ahead step: a provisional lease naming everything the next steps will create. */
export async function beginIssue(c: Ctx): Promise<{ lease: LeaseRecord; record: DynamicRecord | StaticRecord }> {
  const record = recordFor(c);
  const lease = await openIssuingLease(c.deps, {
    mount: c.mount.path,
    engine: 'cloud-a',
    path: `creds/${c.roleName}`,
    revoke: record,
    owner: c.owner,
  });
  return { lease, record };
}

export async function issueCreds(c: Ctx): Promise<Issued> {
  const { ttl, maxTtl } = leaseTtl(c.mount, c.role.ttl, c.role.maxTtl);
  const endDate = new Date(c.deps.now() + maxTtl * 1000).toISOString();
  const { lease, record } = await beginIssue(c);
  let latest: DynamicRecord | StaticRecord = record;
  const advance = async (r: DynamicRecord | StaticRecord) => {
    latest = r;
    await c.deps.leases.update(lease.lease_id, r);
  };
  try {
    const out = record.kind === 'static' ? await issueStatic(c, record, endDate, advance) : await issueDynamic(c, record, endDate, advance);
    const final = await finishIssuingLease(c.deps, lease, {
      mount: c.mount.path,
      engine: 'cloud-a',
      path: `creds/${c.roleName}`,
      ttl,
      maxTtl,
      // Renewable up to maxTtl (role max_ttl within the mount's maximum), as the reference
      // engine's leases are: the password's end date is set to that same moment at creation.
      renewable: true,
      revoke: latest,
      owner: c.owner,
    });
    return { ...out, leaseId: final.lease_id, ttl: final.expire_time - final.issue_time, renewable: final.renewable };
  } catch (e) {
    await c.deps.leases
      .revoke(lease.lease_id)
      .catch((err: unknown) => logError('cloud-a-undo-deferred', { lease_id: lease.lease_id }, err));
    throw toDomainError(e, 'creating credentials');
  }
}

type Advance<R> = (r: R) => Promise<void>;

async function issueStatic(c: Ctx, r: StaticRecord, endDate: string, advance: Advance<StaticRecord>) {
  const pw = await addPassword(c.settings, r.appObjectId, r.passwordName, endDate);
  await advance({ ...r, keyId: pw.keyId });
  return { clientId: c.role.applicationId, clientSecret: pw.secretText! };
}

async function issueDynamic(c: Ctx, r: DynamicRecord, endDate: string, advance: Advance<DynamicRecord>) {
  const s = c.settings;
  const app = await createApplication(s, r.displayName);
  let rec: DynamicRecord = { ...r, appObjectId: app.id, appId: app.appId };
  await advance(rec);
  const sp = await createServicePrincipal(s, app.appId);
  rec = { ...rec, spObjectId: sp.id };
  await advance(rec);
  const pw = await addPassword(s, app.id, 'latchkey', endDate);
  const retry = { attempts: 6, delayMs: s.retryDelayMs, retryable: notYetVisible };
  for (const [i, role] of c.role.cloudARoles.entries()) {
    await withRetries(() => createRoleAssignment(s, rec.assignments[i]!, role.roleId, sp.id), retry);
  }
  for (const group of rec.groups) await withRetries(() => addGroupMember(s, group, sp.id), retry);
  return { clientId: app.appId, clientSecret: pw.secretText! };
}
