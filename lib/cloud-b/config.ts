/**
 * The stored cloud-B configuration (secret key sealed) and the credential resolution order:
 * CLOUDB_ACCESS_KEY/CLOUDB_SECRET_KEY, then the stored configuration, then instance metadata.
 */
import type { Deps } from '../deps';
import type { CloudBStore, StoredConfig } from './cloud-b-store';
import type { EnvReader } from '../cloud-common/env-settings';
import { metadataCredentials } from './metadata';
import type { Endpoints } from './settings';
import type { AccessCredentials } from './sign-request';

const SECRET_AAD = 'config#secret_key';

/** The configuration as stored: the secret key sealed to the mount's partition. */
export async function sealedConfig(deps: Deps, store: CloudBStore, accessKey: string, secretKey: string): Promise<StoredConfig> {
  return { accessKey, secretKey: await deps.sealer.seal(secretKey, store.part.name, SECRET_AAD) };
}

export async function resolveCredentials(
  deps: Deps,
  store: CloudBStore,
  readEnv: EnvReader,
  endpoints: Endpoints,
): Promise<AccessCredentials> {
  const env = readEnv();
  if (env.CLOUDB_ACCESS_KEY && env.CLOUDB_SECRET_KEY) {
    return {
      accessKeyId: env.CLOUDB_ACCESS_KEY,
      accessKeySecret: env.CLOUDB_SECRET_KEY,
      ...(env.CLOUDB_SECURITY_TOKEN ? { securityToken: env.CLOUDB_SECURITY_TOKEN } : {}),
    };
  }
  const stored = await store.config();
  if (stored) return { accessKeyId: stored.accessKey, accessKeySecret: await deps.sealer.openText(stored.secretKey, SECRET_AAD) };
  return metadataCredentials(endpoints);
}
