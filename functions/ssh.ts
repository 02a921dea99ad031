import { depsFromEnvironment } from '../lib/composition';
import { engineFunction } from '../lib/lambda';
import { sshEngine } from '../lib/ssh/engine';

// API Gateway events go to the engine's app; sys and the sweeper invoke it to revoke its leases
// and to describe its paths (lib/lambda.ts).
export const handler = engineFunction(sshEngine, depsFromEnvironment());
