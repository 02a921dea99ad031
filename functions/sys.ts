import { handle } from 'hono/aws-lambda';
import { depsFromEnvironment } from '../lib/deps';
import { engineRoutes, loadEngines, useEngineRevokers } from '../lib/engines';
import { createSysApp } from '../lib/sys/app';

const deps = depsFromEnvironment();
useEngineRevokers(deps);

export const handler = handle(
  createSysApp(deps, async () => [...engineRoutes(deps.mounts, await loadEngines()), ...(await import('../lib/catalog/routes')).catalogRouteSets()]),
);
