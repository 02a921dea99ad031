/**
 * The one front door every function's app is built on (sys and the engines through
 * vault-api.ts, the catalog through catalog/app.ts), from Hono's own parts: a few small
 * middlewares, one concern each (middleware/: the request's scope, the access log line, HEAD,
 * the audit trail), Hono's router on the decoded path, and `onError`/`notFound` handing every
 * failure to the surface's renderer. A surface adds only what differs: its routes (registered
 * with `route`) and its renderer (Vault's envelope, the catalog's plain text).
 */
import { Hono, type Context, type Handler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import type { Auditor } from '../audit/auditor';
import { HttpError, httpErrorOf } from '../errors';
import { logError } from '../log';
import { accessLog } from './middleware/access-log';
import { auditTrail } from './middleware/audit-trail';
import { headWithoutBody } from './middleware/head';
import { requestScope } from './middleware/request-scope';
import { decodedPath } from './request-path';

export interface Renderer {
  /** The answer for a failure: already mapped to an HttpError (a 5xx's cause is logged, never shown). */
  error(err: HttpError, c: Context): Response | Promise<Response>;
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
    // TrieRouter, not the default SmartRouter(RegExpRouter, TrieRouter): RegExpRouter compiles
    // every route into one expression on the first request, 20+ ms of a cold start for PKI's
    // 500 routes; the trie matches as fast on warm requests (bench figures in BENCHMARKS.md).
    router: new TrieRouter(),
    getPath: (request) => {
      try {
        return routingPath(request);
      } catch {
        // Not routable (bad percent-encoding, a dot segment): no route takes `/` (the middleware
        // does, which the trie router skips for an empty path); notFound re-decodes and answers 400.
        return '/';
      }
    },
  });
  // In order; each one's work after the answer runs in reverse: the audit records, then HEAD, then the log line.
  app.use(requestScope(name), accessLog(), headWithoutBody(), auditTrail(auditor, renderer.error));
  app.onError((e, c) => {
    const err = httpErrorOf(e);
    if (err.status >= 500) logError('request-fault', c.get('scope').log, err.cause ?? err);
    c.get('audit').error = err.messages.join('; ') || `status ${err.status}`;
    return renderer.error(err, c);
  });
  app.notFound((c) => {
    let err: HttpError;
    try {
      const path = decodedPath(c.req.url);
      err = renderer.notFound(path.startsWith('/v1/') ? path.slice(4) : path);
    } catch (e) {
      err = httpErrorOf(e);
    }
    c.get('audit').error = err.messages.join('; ') || `status ${err.status}`;
    return renderer.error(err, c);
  });
  return app;
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

/**
 * A declared path as the OpenAPI document and the log line show it: `pki/roles/{name}`,
 * `kv/{key}`, never the router's `:name` and `*key` (the values themselves stay out of the log).
 */
export function pathTemplate(prefix: string, pattern: string): string {
  const template = pattern.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  return template ? `${prefix}/${template}` : prefix;
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
