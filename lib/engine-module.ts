/**
 * What an engine module is: how to route one of its mounts and how to revoke its leases. Its
 * own module (type imports only), so the engine list and every engine can name it without
 * importing engines.ts, which loads the list.
 */
import type { Mount } from './config';
import type { Deps } from './deps';
import type { PathSpec } from './http/path';
import type { Revoker } from './sys/leases';
import type { EngineType } from './types';

export interface EngineModule {
  type: EngineType;
  /** The declared paths of one mount of this engine. */
  paths(mount: Mount): PathSpec[];
  /** Undoes what a lease of this engine created. */
  revoker?(deps: Deps): Revoker;
}
