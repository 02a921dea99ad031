/**
 * The registry of engines: each engine module says how to route one of its mounts and how
 * to revoke its leases. Functions are built from it, and so are the OpenAPI document and the
 * sweeper's revokers, so an engine is added in exactly one place.
 */
import type { EngineType, Mount } from './config';
import type { Deps } from './deps';
import { createApp, type RouteSet } from './http/engine-app';
import type { PathSpec } from './http/path';
import type { Revoker } from './sys/leases';

export interface EngineModule {
  type: EngineType;
  /** The declared paths of one mount of this engine. */
  paths(mount: Mount): PathSpec[];
  /** Undoes what a lease of this engine created. */
  revoker?(deps: Deps): Revoker;
}

export const ENGINES: EngineModule[] = [];

export function engineRoutes(mounts: Mount[], engines: EngineModule[] = ENGINES): RouteSet[] {
  const out: RouteSet[] = [];
  for (const e of engines) {
    for (const m of mounts.filter((x) => x.type === e.type)) out.push({ prefix: m.path, mount: m, paths: e.paths(m) });
  }
  return out;
}

export function registerRevokers(deps: Deps, engines: EngineModule[] = ENGINES): void {
  for (const e of engines) if (e.revoker) deps.revokers.set(e.type, e.revoker(deps));
}

export function createEngineApp(type: EngineType, deps: Deps, engines: EngineModule[] = ENGINES) {
  return createApp({ name: type, deps, routes: engineRoutes(deps.mounts, engines.filter((e) => e.type === type)) });
}
