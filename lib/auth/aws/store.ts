/** The aws auth mount's records: its client configuration and its roles, in the mount's partition. */
import type { Json, Partition } from '../../store/store';
import type { AwsRole } from './role';

export interface ClientConfig {
  stsEndpoint: string;
  stsRegion: string;
  iamServerIdHeaderValue: string;
}

export const DEFAULT_CLIENT_CONFIG: ClientConfig = {
  stsEndpoint: 'https://sts.amazonaws.com',
  stsRegion: 'us-east-1',
  iamServerIdHeaderValue: '',
};

const CONFIG = 'config/client';
const ROLE = 'role/';

export class AwsAuthStore {
  constructor(readonly part: Partition) {}

  async config(): Promise<ClientConfig | undefined> {
    return (await this.part.get<ClientConfig>(CONFIG))?.value;
  }

  async putConfig(config: ClientConfig): Promise<void> {
    await this.part.put(CONFIG, { ...config } satisfies Json);
  }

  async deleteConfig(): Promise<void> {
    await this.part.delete(CONFIG);
  }

  async role(name: string): Promise<AwsRole | undefined> {
    return (await this.part.get<AwsRole>(ROLE + name))?.value;
  }

  async putRole(name: string, role: AwsRole): Promise<void> {
    await this.part.put(ROLE + name, { ...role, settings: { ...role.settings } } satisfies Json);
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
