/**
 * The approle mount's records in its partition:
 *
 *   config/hmac-key            the mount's HMAC key (random, sealed), made once by the first user
 *   role/<name>                a role (its role id, secret id rules, token settings, uid)
 *   role-id/<hmac(role id)>    which role a role id names (role ids are unique across roles)
 *   secret-id/<uid>/<hmac>     a secret id, only as its HMAC, under its role's uid
 *   accessor/<accessor>        which secret id an accessor names ({ uid, hmac })
 *
 * A secret id lives under the uid its role got when it was created, so a role deleted and made
 * again under the same name never inherits the old role's secret ids.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps';
import { ExistsError } from '../../domain-errors';
import type { SealedValue } from '../../keys/sealed';
import type { Partition, Store, StoredItem } from '../../store/store';
import type { TokenSettings } from '../token-fields';

export type AppRole = {
  /** Random, fixed at creation: the secret ids of this role live under it. */
  uid: string;
  roleId: string;
  bindSecretId: boolean;
  secretIdBoundCidrs: string[];
  secretIdNumUses: number;
  /** Seconds; 0: secret ids do not expire. */
  secretIdTtl: number;
  token: TokenSettings;
};

export type SecretIdRecord = {
  accessor: string;
  /** Uses left; 0: unlimited. */
  numUses: number;
  /** Seconds, as granted. */
  ttl: number;
  /** Milliseconds since the epoch. */
  creationTime: number;
  /** Milliseconds since the epoch; 0: never. */
  expirationTime: number;
  lastUpdatedTime: number;
  metadata: Record<string, string>;
  cidrList: string[];
  tokenBoundCidrs: string[];
};

/** Which role a role id names; `at` (ms) is when the claim was made. */
/** `uid`: the role's uid when claimed (a login reads the role and the secret id together); claims written before it lack it. */
export type RoleIdOwner = { name: string; at: number; uid?: string };

export type AccessorRecord = { uid: string; hmac: string };

const HMAC_KEY = 'config/hmac-key';
export const SECRET_ID_EXPIRY_INDEX = 'approle-secret-id-expiry';
const keyCaches = new WeakMap<Store, Map<string, Promise<Buffer>>>();

export const secretIdKey = (uid: string, hmac: string) => `secret-id/${uid}/${hmac}`;

export class ApproleStore {
  constructor(
    private readonly deps: Pick<Deps, 'store' | 'sealer'>,
    readonly part: Partition,
  ) {}

  /** The HMAC of a role id or a secret id under the mount's key (the kinds never collide). */
  async hmac(kind: 'role-id' | 'secret-id', value: string): Promise<string> {
    return createHmac('sha256', await this.key())
      .update(`${kind}:${value}`)
      .digest('hex');
  }

  private key(): Promise<Buffer> {
    let cache = keyCaches.get(this.deps.store);
    if (!cache) keyCaches.set(this.deps.store, (cache = new Map()));
    let key = cache.get(this.part.name);
    if (!key) {
      key = this.loadOrCreateKey();
      cache.set(this.part.name, key);
      key.catch(() => cache.delete(this.part.name));
    }
    return key;
  }

  /** Made once: concurrent first users race with ifAbsent, and everyone uses the winner's key. */
  private async loadOrCreateKey(): Promise<Buffer> {
    let item = await this.part.get<SealedValue>(HMAC_KEY);
    if (!item) {
      const sealed = await this.deps.sealer.seal(randomBytes(32), this.part.name, HMAC_KEY);
      try {
        await this.part.put(HMAC_KEY, { ...sealed }, { ifAbsent: true });
      } catch (e) {
        if (!(e instanceof ExistsError)) throw e;
      }
      item = await this.part.get<SealedValue>(HMAC_KEY);
      if (!item) throw new Error('the approle HMAC key was not stored');
    }
    return this.deps.sealer.open(item.value, HMAC_KEY);
  }

  async role(name: string): Promise<StoredItem<AppRole> | undefined> {
    return this.part.get<AppRole>(`role/${name}`);
  }

  /** Writes a role: a new one only if still absent, a changed one only over the version read. */
  async putRole(name: string, role: AppRole, version: number | undefined): Promise<void> {
    await this.part.put(`role/${name}`, role, version === undefined ? { ifAbsent: true } : { ifVersion: version });
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(`role/${name}`);
  }

  async roleNames(): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys('role/', { limit: 1000, ...(cursor ? { cursor } : {}) });
      names.push(...page.items.map((k) => k.slice('role/'.length)));
      cursor = page.cursor;
    } while (cursor);
    return names;
  }

  async roleIdOwner(hmac: string): Promise<StoredItem<RoleIdOwner> | undefined> {
    return this.part.get<RoleIdOwner>(`role-id/${hmac}`);
  }

  /** Claims a role id for a role: only if unclaimed, or over the claim read. */
  async putRoleIdOwner(hmac: string, name: string, now: number, version: number | undefined, uid: string): Promise<void> {
    const owner: RoleIdOwner = { name, at: now, uid };
    await this.part.put(`role-id/${hmac}`, owner, version === undefined ? { ifAbsent: true } : { ifVersion: version });
  }

  async deleteRoleIdOwner(hmac: string, version?: number): Promise<void> {
    await this.part.delete(`role-id/${hmac}`, version === undefined ? {} : { ifVersion: version });
  }

  async secretId(uid: string, hmac: string): Promise<StoredItem<SecretIdRecord> | undefined> {
    return this.part.get<SecretIdRecord>(secretIdKey(uid, hmac));
  }

  async createSecretId(uid: string, hmac: string, record: SecretIdRecord): Promise<void> {
    const index = record.expirationTime ? { index: { name: SECRET_ID_EXPIRY_INDEX, sort: expirySort(record.expirationTime) } } : {};
    await this.part.put(secretIdKey(uid, hmac), record, { ifAbsent: true, ...index });
  }

  /** A use spent: the record with one use less, over the version read (ConflictError if another won). */
  async putSecretId(uid: string, hmac: string, record: SecretIdRecord, version: number): Promise<void> {
    await this.part.put(secretIdKey(uid, hmac), record, { ifVersion: version });
  }

  /** Deletes a secret id (over the version read, when given: ConflictError if another writer won). */
  async deleteSecretId(uid: string, hmac: string, version?: number): Promise<boolean> {
    return this.part.delete(secretIdKey(uid, hmac), version === undefined ? {} : { ifVersion: version });
  }

  /** One page of a role's secret ids. */
  async secretIds(uid: string, cursor?: string) {
    return this.part.list<SecretIdRecord>(`secret-id/${uid}/`, { limit: 500, ...(cursor ? { cursor } : {}) });
  }

  async accessor(accessor: string): Promise<AccessorRecord | undefined> {
    return (await this.part.get<AccessorRecord>(`accessor/${accessor}`))?.value;
  }

  async putAccessor(accessor: string, record: AccessorRecord): Promise<void> {
    await this.part.put(`accessor/${accessor}`, record, { ifAbsent: true });
  }

  async deleteAccessor(accessor: string): Promise<void> {
    await this.part.delete(`accessor/${accessor}`);
  }

  /** Secret ids whose expiry (ms) is at or before `until`, one page. */
  async expiredSecretIds(until: number, cursor?: string) {
    return this.part.queryIndex<SecretIdRecord>(SECRET_ID_EXPIRY_INDEX, {
      to: expirySort(until),
      limit: 200,
      ...(cursor ? { cursor } : {}),
    });
  }
}

/** A sortable expiry (milliseconds, zero-padded). */
const expirySort = (ms: number) => String(ms).padStart(15, '0');
