import { cloudAEngine } from '../lib/cloud-a/engine';
import { depsFromEnvironment } from '../lib/composition';
import { engineFunction } from '../lib/lambda';

export const handler = engineFunction(cloudAEngine, depsFromEnvironment());
