/** Every catalog route, and the route sets the sys OpenAPI document lists them under. */
import type { RouteSet } from '../http/path';
import { createRouter } from './http/route';
import { agentRoutes } from './paths/agent';
import { catalogRoutes } from './paths/catalog';
import { healthRoutes } from './paths/health';
import { kvRoutes } from './paths/kv';
import { datacentersRoute, statusRoutes } from './paths/status';

export const catalogRouter = createRouter([
  ...kvRoutes,
  ...catalogRoutes,
  datacentersRoute,
  ...agentRoutes,
  ...healthRoutes,
  ...statusRoutes,
]);

/** Prefixes `kv`, `catalog`, `agent`, `health`, `status`, for the sys OpenAPI document (`sysFunctionApp(deps, ...)`). */
export function catalogRouteSets(): RouteSet[] {
  return catalogRouter.routeSets();
}
