/**
 * Roles and their role ids: a role id names exactly one role. A write claims the role id's index
 * item before the role is written (and gives the old one up after), so two roles never log in
 * under one role id; a claim left by a crashed write is taken over once it is old and its role
 * does not carry that role id.
 */
import { ConflictError, ExistsError, InvalidInput } from '../../domain-errors';
import type { StoredItem } from '../../store/store';
import type { AppRole, ApproleStore, SecretIdRecord } from './approle-store';
import { flushSecretIds, INVALID_CREDENTIALS } from './secret-ids';

/** How old an index claim whose role does not carry it must be before another role may take it. */
const STALE_CLAIM_MS = 60_000;

export async function saveRole(
  store: ApproleStore,
  name: string,
  current: StoredItem<AppRole> | undefined,
  next: AppRole,
  now: number,
): Promise<void> {
  const newHmac = await store.hmac('role-id', next.roleId);
  const oldHmac = current ? await store.hmac('role-id', current.value.roleId) : undefined;
  const moved = newHmac !== oldHmac;
  if (moved) await claimRoleId(store, newHmac, name, now, next.uid);
  try {
    await store.putRole(name, next, current?.version);
  } catch (e) {
    if (moved) await releaseRoleId(store, newHmac, name);
    if (e instanceof ExistsError || e instanceof ConflictError)
      throw new ConflictError('the role was changed concurrently; retry the request');
    throw e;
  }
  if (moved && oldHmac) await releaseRoleId(store, oldHmac, name);
}

async function claimRoleId(store: ApproleStore, hmac: string, name: string, now: number, uid: string): Promise<void> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const owner = await store.roleIdOwner(hmac);
    try {
      if (!owner) return await store.putRoleIdOwner(hmac, name, now, undefined, uid);
      if (owner.value.name === name)
        return owner.value.uid === uid ? undefined : await store.putRoleIdOwner(hmac, name, now, owner.version, uid);
      const other = await store.role(owner.value.name);
      const held = other && (await store.hmac('role-id', other.value.roleId)) === hmac;
      if (held || now - (owner.value.at ?? 0) < STALE_CLAIM_MS) throw new InvalidInput('role_id already in use');
      return await store.putRoleIdOwner(hmac, name, now, owner.version, uid);
    } catch (e) {
      if (!(e instanceof ExistsError || e instanceof ConflictError)) throw e;
    }
  }
  throw new ConflictError('the role_id was claimed concurrently; retry the request');
}

async function releaseRoleId(store: ApproleStore, hmac: string, name: string): Promise<void> {
  const owner = await store.roleIdOwner(hmac);
  if (owner?.value.name !== name) return;
  try {
    await store.deleteRoleIdOwner(hmac, owner.version);
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
  }
}

/** Deletes a role: its secret ids first, then its role id, then the role. */
export async function deleteRole(store: ApproleStore, name: string): Promise<void> {
  const item = await store.role(name);
  if (!item) return;
  await flushSecretIds(store, item.value);
  await releaseRoleId(store, await store.hmac('role-id', item.value.roleId), name);
  await store.deleteRole(name);
}

/** The role a role id names, or a refusal in the reference's words. */
export async function roleOfRoleId(store: ApproleStore, roleId: string): Promise<{ name: string; role: AppRole }> {
  const { name, role } = await loginRecords(store, roleId, undefined);
  return { name, role };
}

/**
 * What a login reads: the role a role id names and, with it, the secret id's item when the role
 * id's claim knows the role's uid (claims written before it: the secret id is read after, by
 * spendSecretId). Two round trips.
 */
export async function loginRecords(
  store: ApproleStore,
  roleId: string,
  secretId: string | undefined,
): Promise<{ name: string; role: AppRole; secret?: { hmac: string; item: StoredItem<SecretIdRecord> | undefined } }> {
  if (roleId.length > 4096 || (secretId?.length ?? 0) > 4096) throw new InvalidInput(INVALID_CREDENTIALS);
  const [roleHmac, secretHmac] = await Promise.all([
    store.hmac('role-id', roleId),
    secretId ? store.hmac('secret-id', secretId) : undefined,
  ]);
  const owner = await store.roleIdOwner(roleHmac);
  if (!owner) throw new InvalidInput(INVALID_CREDENTIALS);
  const uid = owner.value.uid;
  const [item, secret] = await Promise.all([store.role(owner.value.name), uid && secretHmac ? store.secretId(uid, secretHmac) : undefined]);
  if (!item || item.value.roleId !== roleId) throw new InvalidInput(INVALID_CREDENTIALS);
  const read = uid && secretHmac && uid === item.value.uid ? { secret: { hmac: secretHmac, item: secret } } : {};
  return { name: owner.value.name, role: item.value, ...read };
}
