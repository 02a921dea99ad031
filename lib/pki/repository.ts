/**
 * A PKI mount's storage, in one place: every key of its partition (storage.ts) is read and
 * written here, issuers and keys by id, the defaults in config records. The layout is brought
 * to the current version on first use (migrations.ts), once per process and mount. Small,
 * rarely written records (roles, config, issuers, the defaults) are read through the
 * per-process cache (cache.ts); writes made here drop the entry at once.
 */
import type { Deps } from '../deps';
import { NotFoundError } from '../domain-errors';
import { mutate, type Json, type Partition, type Store } from '../store/store';
import { cached, invalidate } from './cache';
import { CONFIG_DEFAULTS, type ConfigName, type ConfigRecords } from './config';
import { issuedBy, issuerIdOf as issuerIdOfCert } from './issuer-id';
import { migrate, type KeyInfo } from './migrations';
import { parseCertificate } from './parse';
import type { Role } from './role';
import { serialKey } from './serial';
import {
  CERT_INDEX,
  expiryIndexSort,
  type CertRecord,
  type IssuerRecord,
  type IssuersConfig,
  type KeyRecord,
  type KeysConfig,
  type StorageMeta,
} from './storage';

const ROLE = 'role/';
const ISSUER = 'issuer/';
const KEY = 'key/';
export const certKey = (serial: Buffer) => `cert/${serialKey(serial)}`;
const COUNT_SHARDS = 16;
const COUNT_KEYS = ['count/certs', ...Array.from({ length: COUNT_SHARDS }, (_, i) => `count/certs/${i}`)];
const NO_ISSUERS: IssuersConfig = { default: '', defaultFollowsLatestIssuer: false };

/** Migrations done (or under way) in this process, per store and partition. */
const migrated = new WeakMap<Store, Map<string, Promise<StorageMeta>>>();

export class PkiRepository {
  /** `part`: the mount's partition (`req.part` in a request, `mountPartition` outside one). */
  constructor(
    readonly deps: Pick<Deps, 'store' | 'now'>,
    readonly part: Partition,
    /** Opens a sealed key for what the migration must know of it (issuer.ts supplies it). */
    private readonly keyInfo?: KeyInfo,
  ) {}

  /** The storage marker, once the layout is current (the first call per process migrates it). */
  ready(): Promise<StorageMeta> {
    let byPart = migrated.get(this.deps.store);
    if (!byPart) migrated.set(this.deps.store, (byPart = new Map()));
    const memo = byPart;
    const id = this.part.name;
    let done = memo.get(id);
    if (!done) {
      const keyInfo: KeyInfo = this.keyInfo ?? (async () => Promise.reject(new Error('a pending key needs the key opener to migrate')));
      done = migrate(this.part, this.deps.now(), keyInfo);
      memo.set(id, done);
      done.catch(() => memo.delete(id));
    }
    return done;
  }

  // Roles and configuration.

  async role(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(ROLE + name))?.value;
  }

  /** The role as issuing reads it: through the per-process cache (other instances see a write within its TTL). */
  cachedRole(name: string): Promise<Role | undefined> {
    return cached(this.deps.store, this.cacheKey(ROLE + name), () => this.role(name));
  }

  async hasRole(name: string): Promise<boolean> {
    return (await this.part.get(ROLE + name)) !== undefined;
  }

  /** Role names, in name order (the first 1,000, as the reference lists them). */
  async roleNames(): Promise<string[]> {
    return (await this.part.listKeys(ROLE, { limit: 1000 })).items.map((k) => k.slice(ROLE.length));
  }

  async putRole(name: string, role: Role): Promise<void> {
    await this.part.put(ROLE + name, role);
    invalidate(this.deps.store, this.cacheKey(ROLE + name));
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(ROLE + name);
    invalidate(this.deps.store, this.cacheKey(ROLE + name));
  }

  /** A configuration record, its defaults under what is stored. */
  async config<K extends ConfigName>(name: K): Promise<ConfigRecords[K]> {
    const item = await this.part.get<Partial<ConfigRecords[K]>>(`config/${name}`);
    return { ...CONFIG_DEFAULTS[name], ...(item?.value ?? {}) };
  }

  /** A configuration record through the per-process cache (config/urls, read on every issue). */
  cachedConfig<K extends ConfigName>(name: K): Promise<ConfigRecords[K]> {
    return cached(this.deps.store, this.cacheKey(name), () => this.config(name));
  }

  async writeConfig<K extends ConfigName>(name: K, value: ConfigRecords[K]): Promise<void> {
    await this.part.put(`config/${name}`, value);
    invalidate(this.deps.store, this.cacheKey(name));
  }

  // Issuers.

  async issuerIds(): Promise<string[]> {
    await this.ready();
    return this.idsUnder(ISSUER);
  }

  async issuer(id: string): Promise<IssuerRecord | undefined> {
    await this.ready();
    return cached(this.deps.store, this.cacheKey(ISSUER + id), async () => (await this.part.get<IssuerRecord>(ISSUER + id))?.value);
  }

  async issuers(): Promise<IssuerRecord[]> {
    const ids = await this.issuerIds();
    return (await Promise.all(ids.map((id) => this.issuer(id)))).filter((i): i is IssuerRecord => i !== undefined);
  }

  async putIssuer(record: IssuerRecord): Promise<void> {
    await this.ready();
    await this.part.put(ISSUER + record.id, record);
    invalidate(this.deps.store, this.cacheKey(ISSUER + record.id));
  }

  async deleteIssuer(id: string): Promise<void> {
    await this.ready();
    await this.part.delete(ISSUER + id);
    for (const key of [`crl/${id}`, `crl-base/${id}`, `crl-delta/${id}`, `crl-number/${id}`]) await this.part.delete(key);
    invalidate(this.deps.store, this.cacheKey(ISSUER + id));
  }

  async issuersConfig(): Promise<IssuersConfig> {
    await this.ready();
    return cached(this.deps.store, this.cacheKey('config/issuers'), async () => ({
      ...NO_ISSUERS,
      ...((await this.part.get<IssuersConfig>('config/issuers'))?.value ?? {}),
    }));
  }

  async writeIssuersConfig(c: IssuersConfig): Promise<void> {
    await this.ready();
    await this.part.put('config/issuers', c);
    invalidate(this.deps.store, this.cacheKey('config/issuers'));
  }

  /** A read-modify-write of config/issuers under optimistic concurrency (`change` returning undefined: no write). */
  async updateIssuersConfig(change: (c: IssuersConfig) => IssuersConfig | undefined): Promise<void> {
    await this.ready();
    await mutate<IssuersConfig>(this.part, 'config/issuers', (c) => change({ ...NO_ISSUERS, ...(c ?? {}) }));
    invalidate(this.deps.store, this.cacheKey('config/issuers'));
  }

  /** An issuer by reference: `default`, an id or a name; NotFoundError naming the reference. */
  async resolveIssuer(ref: string): Promise<IssuerRecord> {
    const found = await this.findIssuer(ref);
    if (!found) {
      throw new NotFoundError(
        ref === 'default' ? 'no default issuer currently configured' : `unable to find issuer for reference: ${ref.slice(0, 64)}`,
      );
    }
    return found;
  }

  async findIssuer(ref: string): Promise<IssuerRecord | undefined> {
    if (ref === 'default' || ref === '') {
      const id = (await this.issuersConfig()).default;
      return id ? this.issuer(id) : undefined;
    }
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(ref)) {
      const byId = await this.issuer(ref);
      if (byId) return byId;
    }
    return (await this.issuers()).find((i) => i.name !== '' && i.name === ref);
  }

  // Keys.

  async keyIds(): Promise<string[]> {
    await this.ready();
    return this.idsUnder(KEY);
  }

  async key(id: string): Promise<KeyRecord | undefined> {
    await this.ready();
    return (await this.part.get<KeyRecord>(KEY + id))?.value;
  }

  async keys(): Promise<KeyRecord[]> {
    const ids = await this.keyIds();
    return (await Promise.all(ids.map((id) => this.key(id)))).filter((k): k is KeyRecord => k !== undefined);
  }

  async putKey(record: KeyRecord): Promise<void> {
    await this.ready();
    await this.part.put(KEY + record.id, record);
  }

  async deleteKey(id: string): Promise<void> {
    await this.ready();
    await this.part.delete(KEY + id);
  }

  async keysConfig(): Promise<KeysConfig> {
    await this.ready();
    return { default: '', ...((await this.part.get<KeysConfig>('config/keys'))?.value ?? {}) };
  }

  async writeKeysConfig(c: KeysConfig): Promise<void> {
    await this.ready();
    await this.part.put('config/keys', c);
  }

  /** A read-modify-write of config/keys under optimistic concurrency (`change` returning undefined: no write). */
  async updateKeysConfig(change: (c: KeysConfig) => KeysConfig | undefined): Promise<void> {
    await this.ready();
    await mutate<KeysConfig>(this.part, 'config/keys', (c) => change({ default: '', ...(c ?? {}) }));
  }

  /** A key by reference: `default`, an id or a name; NotFoundError naming the reference. */
  async resolveKey(ref: string): Promise<KeyRecord> {
    const found = await this.findKey(ref);
    if (!found)
      throw new NotFoundError(
        ref === 'default' ? 'no default key currently configured' : `unable to find PKI key for reference: ${ref.slice(0, 64)}`,
      );
    return found;
  }

  async findKey(ref: string): Promise<KeyRecord | undefined> {
    if (ref === 'default' || ref === '') {
      const id = (await this.keysConfig()).default;
      return id ? this.key(id) : undefined;
    }
    const byId = /^[0-9a-f-]{36}$/.test(ref) ? await this.key(ref) : undefined;
    return byId ?? (await this.keys()).find((k) => k.name !== '' && k.name === ref);
  }

  /** The key whose public key is `spki` (base64 DER), if the mount holds it. */
  async keyBySpki(spki: string): Promise<KeyRecord | undefined> {
    return (await this.keys()).find((k) => k.spki === spki);
  }

  // Certificates.

  /** A certificate of `issuerId` ('' for none of the mount's: an imported CA certificate), in the expiry index, counted. */
  async storeCertificate(serial: Buffer, der: Buffer, notAfter: number, issuerId: string): Promise<void> {
    const record: CertRecord = { der: der.toString('base64'), notAfter, ...(issuerId ? { issuerId } : {}) };
    // Together (the count is informational): on the embedded store one fsynced batch, not two in a row.
    await Promise.all([
      this.part.put(certKey(serial), record, { index: { name: CERT_INDEX, sort: expiryIndexSort(notAfter, serialKey(serial)) } }),
      this.countCertificates(1),
    ]);
  }

  /**
   * The stored-certificate count, spread over shards: one DynamoDB item takes about 1,000 writes
   * a second, and every stored issue counts one. `count/certs` alone is the unsharded count of
   * earlier versions, still summed in.
   */
  async countCertificates(delta: number): Promise<void> {
    await this.part.increment(COUNT_KEYS[1 + Math.floor(Math.random() * COUNT_SHARDS)]!, delta);
  }

  /** The stored-certificate count (informational: tidy's progress messages and totals). */
  async certificateCount(): Promise<number> {
    const shards = await Promise.all(COUNT_KEYS.map((k) => this.part.increment(k, 0)));
    return Math.max(
      0,
      shards.reduce((a, b) => a + b, 0),
    );
  }

  async certificate(serial: Buffer): Promise<CertRecord | undefined> {
    return (await this.part.get<CertRecord>(certKey(serial)))?.value;
  }

  /**
   * The issuer a stored certificate or revocation names; for a record of version 1 (none named),
   * the migrated CA when that CA issued it (by issuer name and key id), else none of the mount's.
   */
  async issuerIdOf(record: { issuerId?: string; issuer?: string; der?: string }): Promise<string> {
    if (record.issuerId) return record.issuerId;
    const meta = await this.ready();
    if (!meta.legacyIssuer || !meta.legacyCaId) return '';
    const named = record.issuer ?? (record.der ? issuerIdOfCert(parseCertificate(Buffer.from(record.der, 'base64'))) : undefined);
    return named === undefined || issuedBy(named, meta.legacyCaId) ? meta.legacyIssuer : '';
  }

  // Each issuer's CRL.

  async crlRecord<T extends Json>(issuerId: string): Promise<T | undefined> {
    await this.ready();
    return (await this.part.get<T>(`crl/${issuerId}`))?.value;
  }

  crlKey(issuerId: string): string {
    return `crl/${issuerId}`;
  }

  private async idsUnder(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(prefix, { limit: 1000, ...(cursor ? { cursor } : {}) });
      out.push(...page.items.map((k) => k.slice(prefix.length)));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  private cacheKey(name: string): string {
    return `${this.part.name}|${name}`;
  }
}
