/**
 * Undoing a cloud-A lease, idempotently: whatever exists is deleted, whatever is gone already
 * counts as deleted. Objects are found by the ids recorded and by the names chosen up front,
 * so a crash between a create and its record leaves nothing behind.
 */
import type { Deps } from '../deps';
import type { EnvReader } from '../cloud-common/env-settings';
import type { LeaseRecord } from '../sys/leases';
import { deleteRoleAssignment } from './arm';
import { mountPartition } from '../mount-partition';
import { cloudAStore } from './cloud-a-store';
import { effectiveSettings, type Settings } from './config';
import {
  deleteApplication,
  deleteServicePrincipal,
  findApplications,
  findServicePrincipals,
  getApplication,
  ignoreNotFound,
  removeGroupMember,
  removePassword,
} from './graph';
import { isCredsRecord, type DynamicRecord, type StaticRecord } from './records';

export function cloudARevoker(deps: Deps, readEnv: EnvReader) {
  return async (lease: LeaseRecord): Promise<void> => {
    const record = lease.revoke;
    if (!isCredsRecord(record)) throw new Error('cloud-a lease without a revocation record');
    if (record.kind === 'moved') return;
    const settings = await effectiveSettings(deps, await cloudAStore(mountPartition(deps, 'cloud-a', lease.mount)).config(), readEnv);
    if (record.kind === 'static') await undoStatic(settings, record);
    else await undoDynamic(settings, record);
  };
}

async function undoStatic(s: Settings, r: StaticRecord): Promise<void> {
  // By the recorded key id and by the unique name: a retried addPassword may have made two.
  const app = await getApplication(s, r.appObjectId).catch((e: unknown) => (ignoreNotFound(e), undefined));
  if (!app) return;
  const keyIds = new Set((app.passwordCredentials ?? []).filter((p) => p.displayName === r.passwordName).map((p) => p.keyId));
  if (r.keyId && (app.passwordCredentials ?? []).some((p) => p.keyId === r.keyId)) keyIds.add(r.keyId);
  for (const keyId of keyIds) await removePassword(s, r.appObjectId, keyId);
}

async function undoDynamic(s: Settings, r: DynamicRecord): Promise<void> {
  const found = await findApplications(s, 'displayName', r.displayName);
  const apps = new Map(found.map((a) => [a.id, a.appId]));
  if (r.appObjectId) apps.set(r.appObjectId, r.appId);
  const sps = new Set(r.spObjectId ? [r.spObjectId] : []);
  for (const appId of new Set(apps.values())) if (appId) for (const sp of await findServicePrincipals(s, appId)) sps.add(sp.id);
  for (const id of r.assignments) await deleteRoleAssignment(s, id);
  for (const sp of sps) for (const group of r.groups) await removeGroupMember(s, group, sp);
  for (const sp of sps) await deleteServicePrincipal(s, sp);
  for (const id of apps.keys()) await deleteApplication(s, id);
}
