/**
 * The cloud-A engine: service principals in a cloud directory (OAuth2 client credentials,
 * the directory graph, the resource manager's role assignments), each behind a lease.
 * `makeCloudAEngine` takes the environment reader (CLOUDA_* variables) so tests can give theirs.
 */
import type { EngineModule } from '../engine-module';
import { processEnv, type EnvReader } from '../cloud-common/env-settings';
import { configPaths } from './paths/config';
import { credsPaths } from './paths/creds';
import { rolePaths } from './paths/roles';
import { rotatePaths } from './paths/rotate';
import { cloudARevoker } from './revoke';

export function makeCloudAEngine(readEnv: EnvReader = processEnv): EngineModule {
  return {
    type: 'cloud-a',
    paths: () => [...configPaths(readEnv), ...rotatePaths(readEnv), ...rolePaths(readEnv), ...credsPaths(readEnv)],
    revoker: (deps) => cloudARevoker(deps, readEnv),
  };
}

export const cloudAEngine = makeCloudAEngine();
