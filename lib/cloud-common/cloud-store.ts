/**
 * A cloud mount's records, for both cloud engines: its roles (`role/<name>`) and its one
 * configuration record (`config`), typed and (de)serialised in this one place. Records are
 * JSON types (not interfaces), so the store takes them as they are.
 */
import { mutate, type Json, type Partition } from '../store/store';
import { roleName } from './names';

const ROLE = 'role/';
const CONFIG = 'config';

export class CloudStore<Role extends Json, Config extends Json> {
  /** `part`: the mount's partition (`req.part` in a request, `mountPartition` outside one). */
  constructor(readonly part: Partition) {}

  async role(name: string): Promise<Role | undefined> {
    return (await this.part.get<Role>(ROLE + name))?.value;
  }

  /** The existence check of a role path: an invalid name names no role (the write then refuses it). */
  async hasRole(raw: string): Promise<boolean> {
    let name: string;
    try {
      name = roleName(raw);
    } catch {
      return false;
    }
    return (await this.part.get(ROLE + name)) !== undefined;
  }

  /** Role names, in name order (the first 1,000). */
  async roleNames(): Promise<string[]> {
    return (await this.part.listKeys(ROLE, { limit: 1000 })).items.map((k) => k.slice(ROLE.length));
  }

  async putRole(name: string, role: Role): Promise<void> {
    await this.part.put(ROLE + name, role);
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(ROLE + name);
  }

  async config(): Promise<Config | undefined> {
    return (await this.part.get<Config>(CONFIG))?.value;
  }

  async putConfig(value: Config): Promise<void> {
    await this.part.put(CONFIG, value);
  }

  /** Read-modify-write of the configuration (optimistic concurrency); `change` returning undefined writes nothing. */
  changeConfig(change: (current: Config | undefined) => Config | undefined | Promise<Config | undefined>): Promise<Config | undefined> {
    return mutate<Config>(this.part, CONFIG, change);
  }

  async deleteConfig(): Promise<void> {
    await this.part.delete(CONFIG);
  }
}
