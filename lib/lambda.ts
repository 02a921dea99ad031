/**
 * The Lambda entry shape of every HTTP function: API Gateway events go to the Hono app;
 * Latchkey's own internal events (Lambda Invoke, never reachable from API Gateway, whose events
 * always carry `version` and `requestContext` and never a top-level `latchkey`) ask a function
 * for what only it can do:
 * - an engine function: revoke one of its leases, describe its paths for the OpenAPI document
 *   (sent by sys and the sweeper), so engine code lives only in its own function;
 * - the sys function: `init` and `generate-root`, sent by an operator's `npm run admin` with
 *   IAM credentials allowed lambda:InvokeFunction on it: the root token travels only in the
 *   invoke response, to that principal.
 */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { randomUUID } from 'node:crypto';
import type { Deps } from './deps';
import { createEngineApp, engineRoutes, type EngineModule } from './engines';
import type { RouteSet } from './http/path';
import { openApiDocument } from './http/openapi';
import { logInfo } from './log';
import { withMetrics } from './metrics/invocation';
import { generateRoot, initialize } from './sys/init';

export type InternalEvent =
  { latchkey: 'openapi' } | { latchkey: 'revoke-lease'; lease_id: string } | { latchkey: 'init' } | { latchkey: 'generate-root' };

type InternalName = InternalEvent['latchkey'];
export type InternalHandlers = Partial<{ [K in InternalName]: (event: Extract<InternalEvent, { latchkey: K }>) => Promise<unknown> }>;
type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;

function isInternal(event: unknown): event is InternalEvent {
  return typeof event === 'object' && event !== null && typeof (event as { latchkey?: unknown }).latchkey === 'string';
}

/** API Gateway's request id (what the stage's access log records as `requestId`). */
function gatewayRequestId(event: unknown): string | undefined {
  const id = (event as { requestContext?: { requestId?: unknown } } | null)?.requestContext?.requestId;
  return typeof id === 'string' ? id.slice(0, 100) : undefined;
}

/**
 * One line tying API Gateway's request id (in the access log) to Latchkey's own (`request_id`
 * of the function's request log line and the `x-request-id` response header).
 */
function logGatewayRequest(event: unknown, response: unknown): void {
  const gateway = gatewayRequestId(event);
  const own = (response as { headers?: Record<string, unknown> } | null)?.headers?.['x-request-id'];
  if (gateway) logInfo('gateway', { request_id: typeof own === 'string' ? own : undefined, apigw_request_id: gateway });
}

/**
 * A Lambda handler: API Gateway events to `app`, internal events to their handler (else an error);
 * on Lambda, each invocation's metrics flushed as EMF and the cold start counted (metrics/invocation.ts).
 * `name` is the function's short name (`sys`, `pki`, `catalog`), as its access log line says.
 */
export function lambdaHandler(name: string, app: Hono, internal: InternalHandlers): LambdaHandler {
  // hono/aws-lambda types its handler per event shape (v1, v2, ALB); API Gateway sends one of them.
  const http = handle(app) as unknown as LambdaHandler;
  return withMetrics(name, async (event, context) => {
    if (!isInternal(event)) {
      const response = await http(event, context);
      logGatewayRequest(event, response);
      return response;
    }
    const run = internal[event.latchkey] as ((e: InternalEvent) => Promise<unknown>) | undefined;
    if (!run) throw new Error(`unsupported internal event ${JSON.stringify(String(event.latchkey).slice(0, 40))}`);
    return run(event);
  });
}

export function functionHandler(
  name: string,
  app: Hono,
  routes: () => RouteSet[],
  revoke?: (leaseId: string) => Promise<void>,
): LambdaHandler {
  return lambdaHandler(name, app, {
    openapi: async () => openApiDocument(routes(), '').paths,
    ...(revoke
      ? {
          'revoke-lease': async (e) => {
            await revoke(e.lease_id);
            return { revoked: e.lease_id };
          },
        }
      : {}),
  });
}

/** An engine's Lambda: its app, its paths, and its lease revoker. */
export function engineFunction(engine: EngineModule, deps: Deps): LambdaHandler {
  const routes = () => engineRoutes(deps.mounts, [engine]);
  const revoker = engine.revoker?.(deps);
  return functionHandler(
    engine.type,
    createEngineApp(engine, deps),
    routes,
    revoker ? async (id) => revoker(await deps.leases.lookup(id)) : undefined,
  );
}

/** The sys Lambda: its app, and initialisation bound to IAM (see the file comment). */
export function sysFunction(app: Hono, deps: Deps): LambdaHandler {
  const answer = (t: { rootToken: string; accessor: string }) => ({ root_token: t.rootToken, root_token_accessor: t.accessor });
  return lambdaHandler('sys', app, {
    init: async () => {
      const out = await audited(deps, 'sys/init', async () => answer(await initialize(deps)));
      logInfo('init', { function: 'sys' });
      return out;
    },
    'generate-root': async () => {
      const out = await audited(deps, 'sys/generate-root', async () => answer(await generateRoot(deps)));
      logInfo('generate-root', { function: 'sys' });
      return out;
    },
  });
}

/**
 * An internal event recorded as a request is: its request record before it acts (no record, no
 * action), its response (the root token as an HMAC) or error after. The audit key is made on
 * its first use, so `init`'s own request record is written under the key init then keeps.
 */
async function audited(deps: Deps, path: string, run: () => Promise<Record<string, string>>): Promise<Record<string, string>> {
  const request = { id: randomUUID(), operation: 'update', mountType: 'system', mountPoint: 'sys/', path, remoteAddress: 'lambda:invoke' };
  await deps.audit.request(request);
  try {
    const out = await run();
    await deps.audit.response(request, { status: 200, data: out }, undefined);
    return out;
  } catch (e) {
    await deps.audit.response(request, { status: 400 }, e instanceof Error ? e.message : 'failed');
    throw e;
  }
}
