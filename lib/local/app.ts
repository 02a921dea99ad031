/**
 * The one-process dispatcher, standing in for API Gateway: every function's app, each picked
 * by the same path → function rule as the deployed routes. It renders nothing itself: a path
 * no function takes (or one that cannot be decoded) goes to the sys app, whose front door
 * answers it as the deployed service's default route would.
 */
import { Hono } from 'hono';
import { createCatalogApp } from '../catalog/app';
import { catalogRouteSets } from '../catalog/routes';
import type { CatalogConfig } from '../catalog/settings';
import type { Deps } from '../deps';
import { createEngineApp, engineRoutes, type EngineModule } from '../engines';
import { decodedPath } from '../http/request-path';
import { functionFor } from '../routing';
import { sysFunctionApp } from '../sys-function';

export interface LocalAppOptions {
  /** The catalog's settings; default the deployed ones (closed). The local server passes its open overlay. */
  catalog?: CatalogConfig;
}

export function localApp(deps: Deps, engines: EngineModule[], options: LocalAppOptions = {}): Hono {
  const sys = sysFunctionApp(deps, async () => [...engineRoutes(deps.mounts, engines), ...catalogRouteSets()]);
  const apps = new Map<string, Hono>([['sys', sys]]);
  for (const e of engines) apps.set(e.type, createEngineApp(e, deps));
  apps.set('catalog', createCatalogApp(deps, options.catalog));
  const appFor = (request: Request): Hono => {
    // Routing reads the same decoded path every function routes and authorises on, so
    // `/v1/sy%73/mounts` is sys here as it is there.
    let name: string | undefined;
    try {
      name = functionFor(decodedPath(request.url), deps.mounts);
    } catch {
      name = undefined;
    }
    return apps.get(name ?? 'sys') ?? sys;
  };
  // A Hono app for its `request()` (the tests'), whose every request goes straight to the
  // function's app: no router and no context of its own on the way (one fewer per request).
  // The server adaptor's env (the socket, for the audit log's remote address) goes along.
  const app = new Hono();
  app.fetch = (request, env, ctx) => appFor(request).fetch(request, env, ctx);
  return app;
}
