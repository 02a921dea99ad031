/**
 * Secret ids: issued against a role (random or chosen), kept only as an HMAC, looked up and
 * destroyed by value or by accessor, and spent at login. A limited secret id's uses are spent
 * with a conditional write on its one item (the last use deletes it), so of any number of
 * concurrent logins with a single-use secret id exactly one gets through.
 */
import { ConflictError, ExistsError, InvalidInput, NotFoundError } from '../../domain-errors';
import type { StoredItem } from '../../store/store';
import type { AppRole, ApproleStore, SecretIdRecord } from './approle-store';
import { checkChosenId, cidrsWithin, randomId } from './ids';
import { cidrList } from './role';

export const INVALID_CREDENTIALS = 'invalid role or secret ID';

export type SecretIdInput = {
  metadata: Record<string, string>;
  cidrList?: string[] | undefined;
  tokenBoundCidrs?: string[] | undefined;
  ttl?: number | undefined;
  numUses?: number | undefined;
};

export type IssuedSecretId = { secretId: string; accessor: string; ttl: number; numUses: number };

/** Registers `secretId` (random when undefined) under the role: its accessor first, then the id itself. */
export async function issueSecretId(
  store: ApproleStore,
  role: AppRole,
  input: SecretIdInput,
  opts: { secretId?: string | undefined; now: number; maxTtl: number },
): Promise<IssuedSecretId> {
  if (!role.bindSecretId) throw new InvalidInput('bind_secret_id is not set on the role');
  const secretId = opts.secretId === undefined ? randomId() : checkChosenId(opts.secretId, 'secret_id');
  const { cidrList, tokenBoundCidrs } = cidrsWithinRole(role, input);
  const numUses = numUsesWithinRole(role, input);
  const ttl = ttlWithinRole(role, input, opts.maxTtl);
  const hmac = await store.hmac('secret-id', secretId);
  if (await store.secretId(role.uid, hmac)) throw new InvalidInput('SecretID is already registered');
  const accessor = randomId();
  const record: SecretIdRecord = {
    accessor,
    numUses,
    ttl,
    creationTime: opts.now,
    expirationTime: ttl ? opts.now + ttl * 1000 : 0,
    lastUpdatedTime: opts.now,
    metadata: input.metadata,
    cidrList,
    tokenBoundCidrs,
  };
  await registerSecretId(store, role.uid, hmac, record);
  return { secretId, accessor, ttl, numUses };
}

/** The secret id's CIDR blocks for logins and for its tokens, each within the role's. */
function cidrsWithinRole(role: AppRole, input: SecretIdInput): { cidrList: string[]; tokenBoundCidrs: string[] } {
  const cidrs = cidrList(input.cidrList ?? [], 'cidr_list');
  if (!cidrsWithin(cidrs, role.secretIdBoundCidrs))
    throw new InvalidInput('failed to verify subset relationship between CIDR blocks on the role and CIDR blocks on the secret ID');
  const tokenCidrs = cidrList(input.tokenBoundCidrs ?? [], 'token_bound_cidrs');
  if (!cidrsWithin(tokenCidrs, role.token.boundCidrs))
    throw new InvalidInput('failed to verify subset relationship between the token CIDR blocks on the role and on the secret ID');
  return { cidrList: cidrs, tokenBoundCidrs: tokenCidrs };
}

/** The secret id's uses: the role's by default; one given may be neither unlimited nor more than a limited role allows. */
function numUsesWithinRole(role: AppRole, input: SecretIdInput): number {
  const numUses = input.numUses ?? role.secretIdNumUses;
  if (input.numUses !== undefined && role.secretIdNumUses > 0 && (numUses === 0 || numUses > role.secretIdNumUses)) {
    throw new InvalidInput("num_uses cannot be higher than the role's secret_id_num_uses");
  }
  return numUses;
}

/** The secret id's TTL: the role's by default, within a limited role's as for the uses; at most `maxTtl`. */
function ttlWithinRole(role: AppRole, input: SecretIdInput, maxTtl: number): number {
  const ttl = input.ttl ?? role.secretIdTtl;
  if (input.ttl !== undefined && role.secretIdTtl > 0 && (ttl === 0 || ttl > role.secretIdTtl)) {
    throw new InvalidInput("ttl cannot be longer than the role's secret_id_ttl");
  }
  return ttl > maxTtl ? maxTtl : ttl;
}

/**
 * Writes the accessor, then the secret id (only if absent). A crash between leaves an accessor
 * naming nothing, never an id no accessor names; a failed id write takes the accessor back.
 */
async function registerSecretId(store: ApproleStore, uid: string, hmac: string, record: SecretIdRecord): Promise<void> {
  await store.putAccessor(record.accessor, { uid, hmac });
  try {
    await store.createSecretId(uid, hmac, record);
  } catch (e) {
    await store.deleteAccessor(record.accessor);
    if (e instanceof ExistsError) throw new InvalidInput('SecretID is already registered');
    throw e;
  }
}

/**
 * A login's secret id check: present, unexpired, used from an address its cidr_list allows;
 * then one of its uses is spent. Refusals name no secret. Returns the record as it was.
 */
export async function spendSecretId(
  store: ApproleStore,
  role: AppRole,
  secretId: string,
  at: { now: number; address: string | undefined },
  read?: { hmac: string; item: StoredItem<SecretIdRecord> | undefined },
): Promise<SecretIdRecord> {
  if (secretId.length > 4096) throw new InvalidInput(INVALID_CREDENTIALS);
  const hmac = read?.hmac ?? (await store.hmac('secret-id', secretId));
  for (let attempt = 0; ; attempt++) {
    // The first attempt may use the item the login read with its role (roles.ts loginRecords).
    const item = attempt === 0 && read ? read.item : await store.secretId(role.uid, hmac);
    if (!item) throw new InvalidInput(INVALID_CREDENTIALS);
    const entry = item.value;
    if (entry.expirationTime && at.now >= entry.expirationTime) {
      await removeSecretId(store, role.uid, hmac, entry.accessor, item.version);
      throw new InvalidInput(INVALID_CREDENTIALS);
    }
    checkAddress(entry.cidrList, at.address, 'the secret ID');
    try {
      if (entry.numUses === 1) {
        await store.deleteSecretId(role.uid, hmac, item.version);
        await store.deleteAccessor(entry.accessor);
      } else if (entry.numUses > 1) {
        await store.putSecretId(role.uid, hmac, { ...entry, numUses: entry.numUses - 1, lastUpdatedTime: at.now }, item.version);
      }
      return entry;
    } catch (e) {
      // Another login spent a use meanwhile: read again (a spent single-use id is then gone).
      if (!(e instanceof ConflictError) || attempt >= 200) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(20, attempt + 1)));
    }
  }
}

/** Refuses an address outside `blocks` (none: any address); an unknown address is outside every block. */
export function checkAddress(blocks: string[], address: string | undefined, what: string): void {
  if (blocks.length === 0) return;
  if (!address || !cidrsWithin([address], blocks)) {
    throw new InvalidInput(`source address ${JSON.stringify(address ?? '')} unauthorized by CIDR restrictions on ${what}`);
  }
}

async function removeSecretId(store: ApproleStore, uid: string, hmac: string, accessor: string, version?: number): Promise<void> {
  try {
    await store.deleteSecretId(uid, hmac, version);
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    return;
  }
  await store.deleteAccessor(accessor);
}

/** A secret id's record by value (undefined if it is not one of the role's, or has expired). */
export async function lookupSecretId(
  store: ApproleStore,
  role: AppRole,
  secretId: string,
  now: number,
): Promise<SecretIdRecord | undefined> {
  if (secretId.length > 4096) return undefined;
  const hmac = await store.hmac('secret-id', secretId);
  return live(store, role, hmac, now);
}

async function live(store: ApproleStore, role: AppRole, hmac: string, now: number): Promise<SecretIdRecord | undefined> {
  const item = await store.secretId(role.uid, hmac);
  if (!item) return undefined;
  if (item.value.expirationTime && now >= item.value.expirationTime) {
    await removeSecretId(store, role.uid, hmac, item.value.accessor, item.version);
    return undefined;
  }
  return item.value;
}

export async function destroySecretId(store: ApproleStore, role: AppRole, secretId: string): Promise<void> {
  if (secretId.length > 4096) return;
  const hmac = await store.hmac('secret-id', secretId);
  const item = await store.secretId(role.uid, hmac);
  if (!item) return;
  await removeSecretId(store, role.uid, hmac, item.value.accessor);
}

/** The accessor's entry, if it names one of this role's secret ids. */
async function accessorOf(store: ApproleStore, role: AppRole, accessor: string) {
  const entry = accessor.length <= 256 && !accessor.includes('/') ? await store.accessor(accessor) : undefined;
  if (!entry || entry.uid !== role.uid) throw new NotFoundError('failed to find accessor entry for secret_id_accessor');
  return entry;
}

export async function lookupByAccessor(
  store: ApproleStore,
  role: AppRole,
  accessor: string,
  now: number,
): Promise<SecretIdRecord | undefined> {
  const entry = await accessorOf(store, role, accessor);
  return live(store, role, entry.hmac, now);
}

export async function destroyByAccessor(store: ApproleStore, role: AppRole, accessor: string): Promise<void> {
  const entry = await accessorOf(store, role, accessor);
  await removeSecretId(store, role.uid, entry.hmac, accessor);
}

/** The accessors of a role's live secret ids. */
export async function listAccessors(store: ApproleStore, role: AppRole, now: number): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.secretIds(role.uid, cursor);
    for (const item of page.items) if (!item.value.expirationTime || now < item.value.expirationTime) out.push(item.value.accessor);
    cursor = page.cursor;
  } while (cursor);
  return out.sort();
}

/** Removes every secret id of a role (before the role itself goes). */
export async function flushSecretIds(store: ApproleStore, role: AppRole): Promise<void> {
  for (;;) {
    const page = await store.secretIds(role.uid);
    if (page.items.length === 0) return;
    for (const item of page.items) {
      const hmac = item.key.slice(item.key.lastIndexOf('/') + 1);
      await removeSecretId(store, role.uid, hmac, item.value.accessor);
    }
  }
}

/** Removes the secret ids that expired by `now`; returns how many. */
export async function tidySecretIds(store: ApproleStore, now: number): Promise<number> {
  let removed = 0;
  let cursor: string | undefined;
  do {
    const page = await store.expiredSecretIds(now, cursor);
    for (const item of page.items) {
      const [, uid = '', hmac = ''] = item.key.split('/');
      const current = await store.secretId(uid, hmac);
      if (!current || !current.value.expirationTime || current.value.expirationTime > now) continue;
      await removeSecretId(store, uid, hmac, current.value.accessor, current.version);
      removed++;
    }
    cursor = page.cursor;
  } while (cursor);
  return removed;
}

/** A secret id's record as the reference's lookups answer it. */
export function secretIdData(r: SecretIdRecord): Record<string, unknown> {
  const time = (ms: number) => (ms ? new Date(ms).toISOString() : '0001-01-01T00:00:00Z');
  return {
    secret_id_accessor: r.accessor,
    secret_id_num_uses: r.numUses,
    secret_id_ttl: r.ttl,
    creation_time: time(r.creationTime),
    expiration_time: time(r.expirationTime),
    last_updated_time: time(r.lastUpdatedTime),
    metadata: r.metadata,
    cidr_list: r.cidrList,
    token_bound_cidrs: r.tokenBoundCidrs,
  };
}
