/** The jwt mount's records: `config` and `role/<name>` in the mount's partition. */
import type { Partition } from '../../store/store';
import type { JwtConfig } from './config';
import type { JwtRole } from './role';

const CONFIG = 'config';
const ROLE = 'role/';

export class JwtStore {
  constructor(readonly part: Partition) {}

  async config(): Promise<JwtConfig | undefined> {
    return (await this.part.get<JwtConfig>(CONFIG))?.value;
  }

  async putConfig(c: JwtConfig): Promise<void> {
    await this.part.put(CONFIG, c);
  }

  async role(name: string): Promise<JwtRole | undefined> {
    return (await this.part.get<JwtRole>(ROLE + name))?.value;
  }

  async putRole(name: string, r: JwtRole): Promise<void> {
    await this.part.put(ROLE + name, r);
  }

  async deleteRole(name: string): Promise<void> {
    await this.part.delete(ROLE + name);
  }

  /** Role names, in order. */
  async roleNames(): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(ROLE, cursor ? { cursor } : {});
      out.push(...page.items.map((k) => k.slice(ROLE.length)));
      cursor = page.cursor;
    } while (cursor);
    return out;
  }
}
