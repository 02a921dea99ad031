/** This mount's state: issuers (CA key pairs), named keys (sealed), roles, zero-address list, OTP salt. */
import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps';
import { ExistsError } from '../domain-errors';
import type { SealedValue } from '../keys/sealed';
import { mutate, type Partition } from '../store/store';
import { cachedOnMount, forgetMount, forgettingWrites } from './sign-cache';
import { migrateIssuers } from './issuer-migration';
import { IssuerStore } from './issuer-store';
import type { Role } from './role';

const ZERO = 'config/zeroaddress';
const SALT = 'config/otp-salt';
/** Salts by store (one per service; tests run several) and partition. */
const saltCaches = new WeakMap<object, Map<string, Buffer>>();
/**
 * Storage checks by store and partition: a mount is migrated on its first use in a process, and
 * checked again after MIGRATION_CHECK_MS, so that a CA written by a previous release during a
 * rolling deploy is taken in (issuer-migration.ts).
 */
const migrationChecks = new WeakMap<object, Map<string, { until: number; done: Promise<unknown> }>>();
const MIGRATION_CHECK_MS = 2000;

/** Records are types (not interfaces) of JSON values, so they are stored without conversion. */
export class SshStore {
  /** `part`: the mount's partition (`req.part` in a request, `mountPartition` outside one). */
  readonly part: Partition;

  constructor(
    private readonly deps: Pick<Deps, 'store' | 'sealer' | 'now'>,
    part: Partition,
  ) {
    this.part = forgettingWrites(part, () => forgetMount(deps.store, part.name));
  }

  /** What signing reads, kept briefly (sign-cache.ts); this store's writes forget it. */
  cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    return cachedOnMount(this.deps.store, this.part.name, key, load);
  }

  /** A role as signing reads it: kept briefly (sign-cache.ts). */
  cachedRole(name: string): Promise<Role | undefined> {
    return this.cached(`role/${name}`, () => this.getRole(name));
  }

  /** The mount's issuers, its storage migrated to the current version first (issuer-migration.ts). */
  async issuers(): Promise<IssuerStore> {
    const issuers = new IssuerStore(this.deps, this.part);
    let checks = migrationChecks.get(this.deps.store);
    if (!checks) migrationChecks.set(this.deps.store, (checks = new Map()));
    const hit = checks.get(this.part.name);
    if (hit && hit.until > Date.now()) {
      await hit.done;
      return issuers;
    }
    const done = migrateIssuers(issuers);
    const entry = { until: Date.now() + MIGRATION_CHECK_MS, done };
    checks.set(this.part.name, entry);
    done.catch(() => checks.get(this.part.name) === entry && checks.delete(this.part.name));
    await done;
    return issuers;
  }

  async getRole(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(`roles/${name}`))?.value;
  }

  async putRole(name: string, role: Role): Promise<void> {
    await this.part.put(`roles/${name}`, role);
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(`roles/${name}`);
  }

  /** Every role (name and value), in name order. */
  async listRoles(): Promise<{ name: string; role: Role }[]> {
    const out: { name: string; role: Role }[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.list<Role>('roles/', cursor ? { cursor } : {});
      out.push(...page.items.map((i) => ({ name: i.key.slice('roles/'.length), role: i.value })));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  /** The first `limit` roles, in name order (a bounded look, for warnings). */
  async firstRoles(limit: number): Promise<Role[]> {
    return (await this.part.list<Role>('roles/', { limit })).items.map((i) => i.value);
  }

  async putKey(name: string, privateKey: string): Promise<void> {
    const key = `keys/${name}`;
    await this.part.put(key, { key: await this.deps.sealer.seal(privateKey, this.part.name, key) });
  }

  async getKey(name: string): Promise<string | undefined> {
    const key = `keys/${name}`;
    const item = await this.part.get<{ key: SealedValue }>(key);
    return item ? this.deps.sealer.openText(item.value.key, key) : undefined;
  }

  async hasKey(name: string): Promise<boolean> {
    return (await this.part.get(`keys/${name}`)) !== undefined;
  }

  async deleteKey(name: string): Promise<void> {
    await this.part.delete(`keys/${name}`);
  }

  async zeroAddressRoles(): Promise<string[]> {
    return (await this.part.get<{ roles: string[] }>(ZERO))?.value.roles ?? [];
  }

  async setZeroAddressRoles(roles: string[]): Promise<void> {
    await this.part.put(ZERO, { roles });
  }

  /** Takes one role out of the zero-address list (a conditional write: concurrent changes are not lost). */
  async removeZeroAddressRole(name: string): Promise<void> {
    await mutate<{ roles: string[] }>(this.part, ZERO, (cur) =>
      cur?.roles.includes(name) ? { roles: cur.roles.filter((r) => r !== name) } : undefined,
    );
  }

  async deleteZeroAddress(): Promise<void> {
    await this.part.delete(ZERO);
  }

  /** The per-mount OTP salt (random, sealed), created on first use. */
  async otpSalt(): Promise<Buffer> {
    let cache = saltCaches.get(this.deps.store);
    if (!cache) saltCaches.set(this.deps.store, (cache = new Map()));
    const cached = cache.get(this.part.name);
    if (cached) return cached;
    let item = await this.part.get<{ salt: SealedValue }>(SALT);
    if (!item) {
      const sealed = await this.deps.sealer.seal(randomBytes(32), this.part.name, SALT);
      await this.part.put(SALT, { salt: sealed }, { ifAbsent: true }).catch((e: unknown) => {
        if (!(e instanceof ExistsError)) throw e;
      });
      item = await this.part.get<{ salt: SealedValue }>(SALT);
    }
    const salt = await this.deps.sealer.open(item!.value.salt, SALT);
    cache.set(this.part.name, salt);
    return salt;
  }
}
