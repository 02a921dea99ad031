import { handle } from 'hono/aws-lambda';
import { depsFromEnvironment } from '../lib/deps';
import { createEngineApp } from '../lib/engines';
import { pkiEngine } from '../lib/pki/engine';

export const handler = handle(createEngineApp(pkiEngine, depsFromEnvironment()));
