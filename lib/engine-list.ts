/**
 * The engines this build serves. Each engine adds its module here, and nowhere else: the
 * functions, the local server, the OpenAPI document and the sweeper all read this list.
 */
import { cloudAEngine } from './cloud-a/engine';
import { cloudBEngine } from './cloud-b/engine';
import type { EngineModule } from './engine-module';
import { kvEngine } from './kv/engine';
import { sshEngine } from './ssh/engine';
import { pkiEngine } from './pki/engine';

export const ENGINES: EngineModule[] = [cloudAEngine, cloudBEngine, sshEngine, pkiEngine, kvEngine];
