/**
 * Engines plug in here: each engine module says how to route one of its mounts and how to
 * revoke its leases. The list itself (engine-list.ts) is loaded lazily by the functions that
 * need every engine (sys for OpenAPI and lease revocation, the sweeper), so an engine's code is
 * evaluated only where and when it is used.
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

export async function loadEngines(): Promise<EngineModule[]> {
  return (await import('./engine-list')).ENGINES;
}

export function engineRoutes(mounts: Mount[], engines: EngineModule[]): RouteSet[] {
  const out: RouteSet[] = [];
  for (const e of engines) {
    for (const m of mounts.filter((x) => x.type === e.type)) out.push({ prefix: m.path, mount: m, paths: e.paths(m) });
  }
  return out;
}

/** Lets the lease registry find any engine's revoker, loading the engine list on first need. */
export function useEngineRevokers(deps: Deps): void {
  deps.revokers.useLoader(async (type) => (await loadEngines()).find((e) => e.type === type)?.revoker?.(deps));
}

/** The app of one engine function: every mount of its type. */
export function createEngineApp(engine: EngineModule, deps: Deps) {
  return createApp({ name: engine.type, deps, routes: engineRoutes(deps.mounts, [engine]) });
}
