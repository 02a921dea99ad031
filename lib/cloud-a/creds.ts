/**
 * Issuing cloud-A credentials, write-ahead (SecretLeases.writeAhead): a provisional lease first
 * names everything the steps will create; each step then advances it. A failure revokes it at
 * once (and the sweeper retries a revocation that fails, or undoes a request that died mid-way
 * once the issuing window passes), so nothing is left behind in the cloud.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import type { MountRef } from '../http/path';
import type { SecretLeases } from '../sys/secret-leases';
import { CloudError, toDomainError } from '../cloud-common/cloud-error';
import { leaseTtl } from '../cloud-common/lease-ttl';
import { withRetries } from '../cloud-common/retry';
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
  /** The leases of the request (req.secrets): under its mount and path, owned by the calling token. */
  secrets: SecretLeases;
}

/** A new principal may take a moment to be visible to the resource manager: retried, bounded. */
const notYetVisible = (e: unknown) =>
  e instanceof CloudError && (e.code === 'PrincipalNotFound' || e.kind === 'throttled' || e.kind === 'server');

/** The write-ahead record: every name the steps will create, chosen before any of them exists. */
export function recordFor(c: Pick<Ctx, 'roleName' | 'role'>): DynamicRecord | StaticRecord {
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

export async function issueCreds(c: Ctx): Promise<Issued> {
  const { ttl, maxTtl } = leaseTtl(c.mount, c.role.ttl, c.role.maxTtl);
  const endDate = new Date(c.deps.now() + maxTtl * 1000).toISOString();
  const record = recordFor(c);
  const { lease, value } = await c.secrets
    .writeAhead(record, async (provisional) => {
      let latest: DynamicRecord | StaticRecord = record;
      const advance = async (r: DynamicRecord | StaticRecord) => {
        latest = r;
        await c.secrets.update(provisional.lease_id, r);
      };
      const out =
        record.kind === 'static' ? await issueStatic(c, record, endDate, advance) : await issueDynamic(c, record, endDate, advance);
      // Renewable up to maxTtl (role max_ttl within the mount's maximum), as the reference
      // engine's leases are: the password's end date is set to that same moment at creation.
      return { terms: { revoke: latest, ttl, maxTtl, renewable: true }, value: out };
    })
    .catch((e: unknown) => {
      throw toDomainError(e, 'creating credentials');
    });
  return { ...value, leaseId: lease.lease_id, ttl: lease.expire_time - lease.issue_time, renewable: lease.renewable };
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
