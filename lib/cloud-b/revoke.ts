/**
 * Undoing a cloud-B lease, idempotently: every access key of the user (found by listing, so a
 * key whose id was never recorded goes too), every attached policy, the inline policies made
 * for it, then the user. What is already gone counts as done.
 */
import type { Deps } from '../deps';
import type { EnvReader } from '../cloud-common/env-settings';
import type { LeaseRecord } from '../sys/leases';
import { mountPartition } from '../mount-partition';
import { cloudBStore } from './cloud-b-store';
import { resolveCredentials } from './config';
import { deleteAccessKey, deletePolicy, deleteUser, detachPolicy, listAccessKeys, listUserPolicies } from './ram';
import { isCredsRecord, type UserRecord } from './records';
import type { RpcContext } from './rpc';
import { endpointsOf } from './settings';

export function cloudBRevoker(deps: Deps, readEnv: EnvReader) {
  return async (lease: LeaseRecord): Promise<void> => {
    const record = lease.revoke;
    if (!isCredsRecord(record)) throw new Error('cloud-b lease without a revocation record');
    if (record.kind === 'sts' || record.kind === 'moved') return;
    const endpoints = endpointsOf(readEnv);
    const creds = await resolveCredentials(deps, cloudBStore(mountPartition(deps, 'cloud-b', lease.mount)), readEnv, endpoints);
    await undoUser({ endpoints, creds }, record);
  };
}

async function undoUser(c: RpcContext, r: UserRecord): Promise<void> {
  const keys = await listAccessKeys(c, r.userName);
  for (const id of keys ?? []) await deleteAccessKey(c, r.userName, id);
  const attached = await listUserPolicies(c, r.userName);
  for (const p of attached ?? []) await detachPolicy(c, r.userName, p.name, p.type);
  for (const name of r.inlinePolicies) await deletePolicy(c, name);
  if (attached !== undefined || keys !== undefined) await deleteUser(c, r.userName);
}
