/**
 * Engines plug in here: each engine module says how to route one of its mounts and how to
 * revoke its leases (engine-module.ts). The list itself (engine-list.ts) is loaded lazily by the functions that
 * need every engine (sys for OpenAPI and lease revocation, the sweeper), so an engine's code is
 * evaluated only where and when it is used.
 */
import type { Mount } from './config';
import type { Deps } from './deps';
import type { EngineModule } from './engine-module';
import type { RouteSet } from './http/path';
import { createVaultApi } from './http/vault-api';

export type { EngineModule } from './engine-module';

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
  return createVaultApi({ name: engine.type, deps, routes: engineRoutes(deps.mounts, [engine]) });
}
