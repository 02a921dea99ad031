/** Every catalog route, and the route sets the sys OpenAPI document lists them under. */
import type { RouteSet } from '../http/engine-app';
import { createRouter } from './http/route';
import { agentRoutes } from './paths/agent';
import { catalogRoutes } from './paths/catalog';
import { kvRoutes } from './paths/kv';

export const catalogRouter = createRouter([...kvRoutes, ...catalogRoutes, ...agentRoutes]);

/** Prefixes `kv`, `catalog`, `agent`, for `createSysApp(deps, ...)`. */
export function catalogRouteSets(): RouteSet[] {
  return catalogRouter.routeSets();
}
