import { depsFromEnvironment } from '../lib/composition';
import { kvEngine } from '../lib/kv/engine';
import { engineFunction } from '../lib/lambda';

export const handler = engineFunction(kvEngine, depsFromEnvironment());
