import { cloudBEngine } from '../lib/cloud-b/engine';
import { depsFromEnvironment } from '../lib/composition';
import { engineFunction } from '../lib/lambda';

export const handler = engineFunction(cloudBEngine, depsFromEnvironment());
