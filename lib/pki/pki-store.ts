/**
 * A PKI mount's roles and configuration records (`role/<name>`, `config/<name>`), typed, with
 * their (de)serialisation in this one place. Roles and config/urls are read on every issue:
 * those reads go through the per-process cache (cache.ts), and writes here drop the entry.
 * The issuer, certificate, revocation, CRL and tidy records keep their own modules (issuer.ts,
 * certs.ts, revoke.ts, crl.ts, tidy.ts), which take the same partition.
 */
import type { Deps } from '../deps';
import type { Partition } from '../store/store';
import { cached, invalidate } from './cache';
import { CONFIG_DEFAULTS, type ConfigName, type ConfigRecords } from './config';
import type { Role } from './role';

const ROLE = 'role/';

export class PkiStore {
  /** `part`: the mount's partition (`req.part` in a request, `mountPartition` outside one). */
  constructor(
    private readonly deps: Pick<Deps, 'store'>,
    readonly part: Partition,
  ) {}

  async role(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(ROLE + name))?.value;
  }

  /** The role as issuing reads it: through the per-process cache (other instances see a write within its TTL). */
  cachedRole(name: string): Promise<Role | undefined> {
    return cached(this.deps.store, this.roleCacheKey(name), () => this.role(name));
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
    invalidate(this.deps.store, this.roleCacheKey(name));
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(ROLE + name);
    invalidate(this.deps.store, this.roleCacheKey(name));
  }

  /** A configuration record, its defaults under what is stored. */
  async config<K extends ConfigName>(name: K): Promise<ConfigRecords[K]> {
    const item = await this.part.get<Partial<ConfigRecords[K]>>(`config/${name}`);
    return { ...CONFIG_DEFAULTS[name], ...(item?.value ?? {}) };
  }

  /** A configuration record through the per-process cache (config/urls, read on every issue). */
  cachedConfig<K extends ConfigName>(name: K): Promise<ConfigRecords[K]> {
    return cached(this.deps.store, `${this.part.name}|${name}`, () => this.config(name));
  }

  async writeConfig<K extends ConfigName>(name: K, value: ConfigRecords[K]): Promise<void> {
    await this.part.put(`config/${name}`, value);
    invalidate(this.deps.store, `${this.part.name}|${name}`);
  }

  private roleCacheKey(name: string): string {
    return `${this.part.name}|role/${name}`;
  }
}
