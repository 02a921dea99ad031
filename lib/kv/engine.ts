/**
 * The KV secrets engine, as Vault's `kv`: version 2 (versioned secrets, check-and-set, metadata,
 * soft delete, destroy, subkeys) or version 1 (one value per path), by the mount's `version`
 * option (default 2). Every value is sealed at rest under the mount's scope (`kv/<mount>`).
 */
import type { EngineModule } from '../engine-module';
import { configPaths } from './paths/config';
import { dataPaths } from './paths/data';
import { metadataPaths } from './paths/metadata';
import { subkeysPaths } from './paths/subkeys';
import { v1Paths } from './paths/v1';
import { v2Fallback } from './paths/v2-fallback';
import { versionPaths } from './paths/versions';

/** A mount's KV version: its `version` option, "2" when not set. */
export const kvVersion = (options: Readonly<Record<string, string>> | undefined): '1' | '2' => (options?.version === '1' ? '1' : '2');

export const kvEngine: EngineModule = {
  type: 'kv',
  paths: (mount) =>
    kvVersion(mount.options) === '1'
      ? v1Paths
      : [...configPaths, ...dataPaths, ...metadataPaths, ...versionPaths, ...subkeysPaths, ...v2Fallback],
};
