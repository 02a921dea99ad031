import { handle } from 'hono/aws-lambda';
import { cloudBEngine } from '../lib/cloud-b/engine';
import { depsFromEnvironment } from '../lib/deps';
import { createEngineApp } from '../lib/engines';

export const handler = handle(createEngineApp(cloudBEngine, depsFromEnvironment()));
