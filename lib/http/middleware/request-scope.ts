/**
 * Middleware: the request's scope, the first thing every request gets. Its id (also the
 * `x-request-id` of the answer), the URL, `?pretty`, the caller's address (the socket's
 * locally, API Gateway's sourceIp under Lambda), the decoded path after /v1/ (decoded once,
 * request-path.ts), and the fields of its log line, which surfaces add to.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import { decodedPath, hasPretty } from '../request-path';

/** What the front door knows of a request, for the surface's handler, its renderer and the log. */
export interface RequestScope {
  id: string;
  url: URL;
  pretty: boolean;
  /** The caller's address: the socket's locally, API Gateway's sourceIp under Lambda. */
  remoteAddress?: string;
  /** The decoded path after `/v1/` (decoded once, request-path.ts); undefined when it cannot be decoded. */
  path?: string;
  /** Fields of the request's log line; a surface adds its own (mount, path pattern). */
  log: Record<string, unknown>;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by requestScope, the front door's first middleware, on every request. */
    scope: RequestScope;
  }
}

export function requestScope(functionName: string): MiddlewareHandler {
  return async function requestScopeMiddleware(c, next) {
    const url = new URL(c.req.url);
    const id = randomUUID();
    const remoteAddress = remoteAddressOf(c);
    const path = pathAfterV1(url);
    c.set('scope', {
      id,
      url,
      pretty: hasPretty(url),
      ...(remoteAddress ? { remoteAddress } : {}),
      ...(path !== undefined ? { path } : {}),
      log: { request_id: id, function: functionName, method: c.req.method },
    });
    await next();
  };
}

/** The decoded path without its `/v1/` prefix, or undefined when it cannot be decoded (a 400 at routing). */
function pathAfterV1(url: URL): string | undefined {
  try {
    return decodedPath(url).replace(/^\/v1\//, '');
  } catch {
    return undefined;
  }
}

/** The caller's address: the socket's locally, API Gateway's sourceIp under Lambda. */
function remoteAddressOf(c: Context): string | undefined {
  const env = c.env as
    | {
        incoming?: { socket?: { remoteAddress?: string } };
        event?: { requestContext?: { http?: { sourceIp?: string }; identity?: { sourceIp?: string } } };
      }
    | undefined;
  return (
    env?.incoming?.socket?.remoteAddress ?? env?.event?.requestContext?.http?.sourceIp ?? env?.event?.requestContext?.identity?.sourceIp
  );
}
