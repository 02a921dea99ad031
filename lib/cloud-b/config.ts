/**
 * The stored cloud-B configuration (secret key sealed) and the credential resolution order:
 * CLOUDB_ACCESS_KEY/CLOUDB_SECRET_KEY, then the stored configuration, then instance metadata.
 */
import type { Deps } from '../deps';
import type { SealedValue } from '../keys/sealed';
import type { Partition } from '../store/store';
import type { EnvReader } from '../cloud-common/env-settings';
import { metadataCredentials } from './metadata';
import type { Endpoints } from './settings';
import type { AccessCredentials } from './sign-request';

export const CONFIG_KEY = 'config';
const SECRET_AAD = 'config#secret_key';

export interface StoredConfig {
  accessKey: string;
  secretKey: SealedValue;
}

export const partitionOf = (deps: Deps, mount: string): Partition => deps.store.partition(`cloud-b/${mount}`);

export async function readConfig(part: Partition): Promise<StoredConfig | undefined> {
  return (await part.get<StoredConfig>(CONFIG_KEY))?.value;
}

export async function writeConfig(deps: Deps, part: Partition, accessKey: string, secretKey: string): Promise<void> {
  const value = { accessKey, secretKey: await deps.sealer.seal(secretKey, part.name, SECRET_AAD) };
  await part.put(CONFIG_KEY, value as unknown as Parameters<Partition['put']>[1]);
}

export async function resolveCredentials(deps: Deps, part: Partition, readEnv: EnvReader, endpoints: Endpoints): Promise<AccessCredentials> {
  const env = readEnv();
  if (env.CLOUDB_ACCESS_KEY && env.CLOUDB_SECRET_KEY) {
    return { accessKeyId: env.CLOUDB_ACCESS_KEY, accessKeySecret: env.CLOUDB_SECRET_KEY, ...(env.CLOUDB_SECURITY_TOKEN ? { securityToken: env.CLOUDB_SECURITY_TOKEN } : {}) };
  }
  const stored = await readConfig(part);
  if (stored) return { accessKeyId: stored.accessKey, accessKeySecret: await deps.sealer.openText(stored.secretKey, SECRET_AAD) };
  return metadataCredentials(endpoints);
}
