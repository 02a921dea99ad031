/**
 * The one front door every function's app is built on (sys, each engine, the catalog), from
 * Hono's own parts: one middleware gives each request its scope (request id, timing, the
 * decoded path, the log line), Hono's router picks the declared path, `onError`/`notFound`
 * hand every failure to the surface's renderer. A surface adds only what differs: its routes
 * (registered with `route`) and its renderer (the reference envelope, the catalog's plain text).
 */
import { Hono, type Context, type Handler } from 'hono';
import { randomUUID } from 'node:crypto';
import type { AuditRequest, AuditResponse, Auditor } from '../audit/auditor';
import { HttpError, httpErrorOf } from '../errors';
import { logError, logInfo } from '../log';
import { decodedPath, hasPretty } from './request-path';

/** What the front door knows of a request, for the surface's handler, its renderer and the log. */
export interface RequestScope {
  id: string;
  url: URL;
  pretty: boolean;
  /** The caller's address: the socket's locally, API Gateway's sourceIp under Lambda. */
  remoteAddress?: string;
  /** The decoded path after `/v1/` (decoded once, request-path.ts); undefined when it cannot be decoded. */
  path?: string;
  /** Whether an audit device records this request: surfaces skip audit-only work when not. */
  auditing: boolean;
  /** Fields of the request's log line; a surface adds its own (mount, path pattern). */
  log: Record<string, unknown>;
  /** The request's audit records: the surface fills in what it learns, the front door writes them. */
  audit: AuditTrail;
}

export interface AuditTrail {
  request: AuditRequest;
  /** Set by the surface's renderer; a failure is recorded from its status and error. */
  response?: AuditResponse;
  error?: string;
  /** Writes the request record now (before a handler acts); the front door writes it otherwise. */
  record(): Promise<void>;
  recorded: boolean;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by the front door's first middleware on every request. */
    scope: RequestScope;
  }
}

export interface Renderer {
  /** The answer for a failure: already mapped to an HttpError (a 5xx's cause is logged, never shown). */
  error(err: HttpError, scope: RequestScope): Response | Promise<Response>;
  /** The message of a request no route takes (`path` decoded, after /v1/ when it has it). */
  notFound(path: string): HttpError;
}

/**
 * The path Hono routes on: decoded once, as every function authorises and stores by
 * (request-path.ts: `%2F` is a `/`), with each remaining `%` written back as `%25`, because
 * Hono decodes path parameters once more when a handler reads them.
 */
export function routingPath(request: Request): string {
  return decodedPath(request.url).replace(/%/g, '%25');
}

export function frontDoor(name: string, renderer: Renderer, auditor?: Auditor): Hono {
  const app = new Hono({
    getPath: (request) => {
      try {
        return routingPath(request);
      } catch {
        // Not routable (bad percent-encoding, a dot segment): notFound re-decodes and answers 400.
        return '';
      }
    },
  });
  app.use(async (c, next) => {
    const started = performance.now();
    const url = new URL(c.req.url);
    const id = randomUUID();
    const remoteAddress = remoteAddressOf(c);
    const path = pathAfterV1(url);
    const scope: RequestScope = {
      id,
      url,
      pretty: hasPretty(url),
      ...(remoteAddress ? { remoteAddress } : {}),
      ...(path !== undefined ? { path } : {}),
      auditing: auditor?.enabled === true,
      log: { request_id: id, function: name, method: c.req.method },
      audit: newTrail(c, id, path ?? url.pathname.slice(0, 512), remoteAddress, auditor),
    };
    c.set('scope', scope);
    await next();
    if (auditor?.enabled) await writeAudit(c, scope, renderer, auditor);
    // A HEAD is its GET without the body (Hono routes it as the GET), with the GET's length, so
    // a keep-alive client knows the answer is complete and keeps its connection.
    if (c.req.method === 'HEAD') c.res = await headOf(c.res);
    scope.log.status = c.res.status;
    scope.log.duration_ms = Math.round((performance.now() - started) * 100) / 100;
    logInfo('request', scope.log);
  });
  app.onError((e, c) => {
    const err = httpErrorOf(e);
    const scope = c.get('scope');
    if (err.status >= 500) logError('request-fault', scope.log, err.cause ?? err);
    scope.audit.error = err.messages.join('; ') || `status ${err.status}`;
    return renderer.error(err, scope);
  });
  app.notFound((c) => {
    let err: HttpError;
    try {
      const path = decodedPath(c.req.url);
      err = renderer.notFound(path.startsWith('/v1/') ? path.slice(4) : path);
    } catch (e) {
      err = httpErrorOf(e);
    }
    const scope = c.get('scope');
    scope.audit.error = err.messages.join('; ') || `status ${err.status}`;
    return renderer.error(err, scope);
  });
  return app;
}

async function headOf(res: Response): Promise<Response> {
  const headers = new Headers(res.headers);
  if (!headers.has('content-length')) headers.set('content-length', String(res.body ? (await res.arrayBuffer()).byteLength : 0));
  return new Response(null, { status: res.status, statusText: res.statusText, headers });
}

const OPERATIONS: Record<string, string> = { GET: 'read', HEAD: 'read', LIST: 'list', POST: 'update', PUT: 'update', DELETE: 'delete' };

/** The decoded path without its `/v1/` prefix, or undefined when it cannot be decoded (a 400 at routing). */
function pathAfterV1(url: URL): string | undefined {
  try {
    return decodedPath(url).replace(/^\/v1\//, '');
  } catch {
    return undefined;
  }
}

function newTrail(c: Context, id: string, path: string, remoteAddress: string | undefined, auditor: Auditor | undefined): AuditTrail {
  const userAgent = c.req.header('user-agent');
  const trail: AuditTrail = {
    request: {
      id,
      operation: OPERATIONS[c.req.method] ?? c.req.method.toLowerCase(),
      mountType: '',
      mountPoint: '',
      path,
      ...(userAgent ? { userAgent: userAgent.slice(0, 512) } : {}),
      ...(remoteAddress ? { remoteAddress } : {}),
    },
    recorded: false,
    async record() {
      if (!auditor?.enabled || trail.recorded) return;
      await auditor.request(trail.request);
      trail.recorded = true;
    },
  };
  return trail;
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

/** The request record if no handler ran (a refusal, a miss), then the response record; a 500 if neither could be written. */
async function writeAudit(c: Context, scope: RequestScope, renderer: Renderer, auditor: Auditor): Promise<void> {
  const trail = scope.audit;
  try {
    if (!trail.recorded) await auditor.request(trail.request);
    trail.recorded = true;
    await auditor.response(trail.request, trail.response ?? { status: c.res.status }, trail.error);
  } catch (e) {
    const err = httpErrorOf(e);
    logError('audit-fault', scope.log, err.cause ?? err);
    c.res = await renderer.error(err, scope);
  }
}

/**
 * Registers a declared pattern under `/v1/<prefix>/` for every method (the handler answers 405
 * for the ones it lacks): `:x` is one segment, `*x` the rest of the path, and a trailing `/` is
 * accepted (LIST asks for `roles/`). Routes answer in registration order, as declared.
 */
export function route(app: Hono, prefix: string, pattern: string, handler: (c: Context) => Promise<Response>): void {
  const segments = pattern ? pattern.split('/').map(honoSegment) : [];
  const path = ['/v1', prefix, ...segments].join('/');
  const h: Handler = (c) => handler(c);
  app.all(path, h);
  // A wildcard takes a trailing slash into its value (a KV folder `a/`); other patterns allow one.
  if (!pattern.split('/').at(-1)?.startsWith('*')) app.all(`${path}/`, h);
}

function honoSegment(seg: string): string {
  if (seg.startsWith(':')) return seg;
  if (seg.startsWith('*')) return `:${seg.slice(1)}{.+}`;
  return seg;
}

/** Every path parameter of the matched route, decoded (see routingPath). */
export function paramsOf(c: Context): Record<string, string> {
  return c.req.param() as Record<string, string>;
}

/** The matched request's path after `/v1/`, decoded (a matched request always decodes). */
export function fullPath(scope: RequestScope): string {
  return scope.path ?? '';
}
