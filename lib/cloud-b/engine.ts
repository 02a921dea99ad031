/**
 * The cloud-B engine: RAM users with policies and access keys, or STS tokens of an assumable
 * role, each behind a lease; flat JSON answers. `makeCloudBEngine` takes the environment reader
 * (CLOUDB_* variables) so tests can give theirs.
 */
import type { EngineModule } from '../engine-module';
import { processEnv, type EnvReader } from '../cloud-common/env-settings';
import { configPaths } from './paths/config';
import { credsPaths } from './paths/creds';
import { rolePaths } from './paths/roles';
import { cloudBRevoker } from './revoke';

export function makeCloudBEngine(readEnv: EnvReader = processEnv): EngineModule {
  return {
    type: 'cloud-b',
    paths: () => [...configPaths(), ...rolePaths(), ...credsPaths(readEnv)],
    revoker: (deps) => cloudBRevoker(deps, readEnv),
  };
}

export const cloudBEngine = makeCloudBEngine();
