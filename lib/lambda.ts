/**
 * The Lambda entry shape of every HTTP function: API Gateway events go to the Hono app;
 * Latchkey's own internal events (Lambda Invoke from sys and the sweeper, never reachable from
 * API Gateway) ask an engine function for what only it can do: revoke one of its leases, or
 * describe its paths for the OpenAPI document. So engine code lives only in its own function.
 */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import type { Deps } from './deps';
import { createEngineApp, engineRoutes, type EngineModule } from './engines';
import type { RouteSet } from './http/engine-app';
import { openApiDocument } from './http/openapi';

export type InternalEvent = { latchkey: 'openapi' } | { latchkey: 'revoke-lease'; lease_id: string };

function isInternal(event: unknown): event is InternalEvent {
  return typeof event === 'object' && event !== null && typeof (event as { latchkey?: unknown }).latchkey === 'string';
}

type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;

export function functionHandler(app: Hono, routes: () => RouteSet[], revoke?: (leaseId: string) => Promise<void>): LambdaHandler {
  const http = handle(app) as unknown as LambdaHandler;
  return async (event, context) => {
    if (!isInternal(event)) return http(event, context);
    if (event.latchkey === 'openapi') return openApiDocument(routes(), '').paths;
    if (event.latchkey === 'revoke-lease' && revoke) {
      await revoke(event.lease_id);
      return { revoked: event.lease_id };
    }
    throw new Error(`unsupported internal event ${JSON.stringify(event.latchkey)}`);
  };
}

/** An engine's Lambda: its app, its paths, and its lease revoker. */
export function engineFunction(engine: EngineModule, deps: Deps): LambdaHandler {
  const routes = () => engineRoutes(deps.mounts, [engine]);
  const revoker = engine.revoker?.(deps);
  return functionHandler(
    createEngineApp(engine, deps),
    routes,
    revoker ? async (id) => revoker(await deps.leases.lookup(id)) : undefined,
  );
}
