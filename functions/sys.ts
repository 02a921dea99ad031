import { handle } from 'hono/aws-lambda';
import { depsFromEnvironment } from '../lib/deps';
import { engineRoutes, registerRevokers } from '../lib/engines';
import { createSysApp } from '../lib/sys/app';

const deps = depsFromEnvironment();
registerRevokers(deps);

export const handler = handle(createSysApp(deps, () => engineRoutes(deps.mounts)));
