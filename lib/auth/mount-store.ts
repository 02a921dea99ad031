/**
 * An auth mount's records, for the methods that keep one configuration record and named roles
 * (`role/<name>`) in the mount's partition: typed and (de)serialised in this one place. Records
 * are JSON types (not interfaces), so the store takes them as they are.
 */
import type { Json, Partition } from '../store/store';

const ROLE = 'role/';

export class AuthMountStore<Config extends Json, Role extends Json> {
  /** `part`: the mount's partition; `configKey`: the key of its configuration record. */
  constructor(
    readonly part: Partition,
    private readonly configKey: string,
  ) {}

  async config(): Promise<Config | undefined> {
    return (await this.part.get<Config>(this.configKey))?.value;
  }

  async putConfig(config: Config): Promise<void> {
    await this.part.put(this.configKey, config);
  }

  async deleteConfig(): Promise<void> {
    await this.part.delete(this.configKey);
  }

  async role(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(ROLE + name))?.value;
  }

  async putRole(name: string, role: Role): Promise<void> {
    await this.part.put(ROLE + name, role);
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(ROLE + name);
  }

  /** Every role name, in name order. */
  async roleNames(): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(ROLE, { limit: 1000, ...(cursor ? { cursor } : {}) });
      names.push(...page.items.map((k) => k.slice(ROLE.length)));
      cursor = page.cursor;
    } while (cursor);
    return names;
  }
}
