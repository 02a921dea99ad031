/** The one-process dispatcher: every function's app behind the same path → function rule as API Gateway's routes. */
import { Hono } from 'hono';
import { createCatalogApp } from '../catalog/app';
import { catalogRouteSets } from '../catalog/routes';
import type { Deps } from '../deps';
import { createEngineApp, engineRoutes, type EngineModule } from '../engines';
import { HttpError } from '../errors';
import { errorResponse } from '../http/envelope';
import { decodedPath } from '../http/request-path';
import { functionFor } from '../routing';
import { createSysApp } from '../sys/app';

export function localApp(deps: Deps, engines: EngineModule[]): Hono {
  const apps = new Map<string, Hono>([['sys', createSysApp(deps, async () => [...engineRoutes(deps.mounts, engines), ...catalogRouteSets()])]]);
  for (const e of engines) apps.set(e.type, createEngineApp(e, deps));
  apps.set('catalog', createCatalogApp(deps));
  const app = new Hono();
  app.all('*', (c) => {
    // The same first check every function makes; routing then reads the same decoded path the
    // function routes and authorises on, so `/v1/sy%73/mounts` is sys here as it is there.
    let path: string;
    try {
      path = decodedPath(c.req.url);
    } catch (e) {
      return errorResponse(400, e instanceof HttpError ? e.messages : ['bad request path'], false, '');
    }
    const name = functionFor(path, deps.mounts);
    const target = name && apps.get(name);
    if (!target) return errorResponse(404, [`no handler for route "${path.slice(0, 256)}"`], false, '');
    return target.fetch(c.req.raw);
  });
  return app;
}
