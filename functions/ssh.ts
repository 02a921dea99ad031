import { handle } from 'hono/aws-lambda';
import { depsFromEnvironment } from '../lib/deps';
import { createEngineApp } from '../lib/engines';
import { sshEngine } from '../lib/ssh/engine';

export const handler = handle(createEngineApp(sshEngine, depsFromEnvironment()));
