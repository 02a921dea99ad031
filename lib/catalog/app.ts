/**
 * The catalog function on the front door (lib/http/front-door.ts): request scope, routing,
 * the log line and error mapping are the front door's; the catalog plugs in its routes, its
 * token and ACL rules, and its renderer, because it keeps the reference catalog's conventions
 * (raw bodies, `true`/`false` answers, plain-text errors, index headers, blocking reads).
 */
import type { Context, Hono } from 'hono';
import type { AuditResponse } from '../audit/auditor';
import type { Deps } from '../deps';
import { BODY_LIMIT } from '../config';
import { HttpError, NotFound, PayloadTooLarge } from '../errors';
import { frontDoor, paramsOf, pathTemplate, route } from '../http/front-door';
import { readRawBody } from '../http/input';
import { resolveAccess, type CatalogAccess } from './acl';
import { Catalog } from './catalog';
import { compileFilter } from './filter/evaluate';
import { nodeMetaFilter } from './filter/node-meta';
import { blockingParams } from './http/blocking';
import { catalogHeaders, errorText, replyResponse } from './http/respond';
import type { CatalogReply, CatalogRoute, Method } from './http/route';
import { catalogToken } from './http/token';
import { KvStore, type Found } from './kv';
import { ModifyIndex } from './modify-index';
import { checkDatacenter } from './register-body';
import { KV_VALUE_LIMIT } from './paths/kv';
import { catalogRouter } from './routes';
import { catalogSettings, type CatalogConfig } from './settings';

export const CATALOG_PARTITION = 'catalog';

/** The largest body any catalog route takes (KV values and JSON bodies alike). */
const MAX_BODY = Math.max(BODY_LIMIT, KV_VALUE_LIMIT);

interface Parts {
  deps: Deps;
  settings: CatalogConfig;
  index: ModifyIndex;
  kv: KvStore;
  catalog: Catalog;
}

/** What a catalog request learns on its way, for the headers of its answer (error or not). */
interface CatalogState {
  index?: number;
  filtered: boolean;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** The catalog request's state (catalogState), for its answer's index headers. */
    catalog: CatalogState;
  }
}

/** The request's catalog state, made on first use (an error may come before any handler). */
function catalogState(c: Context): CatalogState {
  let state = c.get('catalog');
  if (!state) c.set('catalog', (state = { filtered: false }));
  return state;
}

/** The catalog's surface; `settings` default to the deployed ones (closed: ACLs on, default deny). */
export function createCatalogApp(deps: Deps, settings: CatalogConfig = catalogSettings()): Hono {
  const part = deps.store.partition(CATALOG_PARTITION);
  const index = new ModifyIndex(part);
  const parts: Parts = { deps, settings, index, kv: new KvStore(part, deps.sealer, index, deps.store), catalog: new Catalog(part, index) };
  const app = frontDoor(
    'catalog',
    {
      // The reference catalog's errors: plain text, with the index headers (read now if not known).
      error: async (err, c) => {
        const state = catalogState(c);
        state.index ??= await index.current().catch(() => undefined);
        return errorText(err.status, err.messages.join('; '), headersOf(parts, state, c.get('scope').id));
      },
      notFound: (path) => new NotFound(`no handler for route "/v1/${path.slice(0, 256)}"`),
    },
    deps.audit,
  );
  for (const r of catalogRouter.routes) {
    route(app, r.prefix, r.pattern, (c) => serveCatalog(c, r, parts, catalogState(c)));
  }
  return app;
}

function headersOf(parts: Parts, state: CatalogState, requestId: string) {
  return catalogHeaders({
    requestId,
    defaultPolicy: parts.settings.defaultPolicy,
    translate: parts.settings.translateWanAddrs,
    filtered: state.filtered,
    ...(state.index !== undefined ? { index: state.index } : {}),
  });
}

const METHODS: Record<string, Method> = { GET: 'GET', HEAD: 'GET', PUT: 'PUT', POST: 'PUT', DELETE: 'DELETE' };

const OPERATION: Record<Method, string> = { GET: 'read', PUT: 'update', DELETE: 'delete' };

/** The method's handler and the operation the audit log names, or 405 (POST on a PUT-only route included). */
function handlerFor(c: Context, route: CatalogRoute): { method: Method; handler: NonNullable<CatalogRoute['methods'][Method]> } {
  const requested = c.req.method;
  const method = requested === 'POST' && route.putOnly ? undefined : METHODS[requested];
  const handler = method && route.methods[method];
  if (!method || !handler) throw new HttpError(405, [`method ${requested} not allowed`]);
  return { method, handler };
}

/**
 * The request's input, recorded as it comes: the query (no `token`), the token, and a write's
 * body, read here, bounded by the largest any route takes, so the request record holds it (as
 * an HMAC) before the handler acts; each route then applies its own limit.
 */
async function readInput(c: Context, method: Method, settings: CatalogConfig): Promise<{ token?: string; body: Uint8Array }> {
  const { url } = c.get('scope');
  const audit = c.get('audit').request;
  const query = Object.fromEntries([...url.searchParams].filter(([k]) => k !== 'token'));
  audit.data = query;
  checkQuery(url.searchParams, settings);
  const token = catalogToken(c.req.raw.headers, url.searchParams);
  if (token) audit.clientToken = token;
  const body = method === 'GET' ? new Uint8Array() : await readRawBody(c.req.raw, MAX_BODY);
  if (body.length) audit.data = { ...query, http_raw_body: body };
  return { ...(token ? { token } : {}), body };
}

/** What the audit log records of a reply, taken from it before it is rendered. */
function auditOf(reply: CatalogReply): AuditResponse {
  return reply.raw
    ? { status: reply.status ?? 200, raw: { body: reply.raw.bytes, contentType: reply.raw.contentType } }
    : { status: reply.status ?? 200, ...(reply.json !== undefined ? { data: reply.json } : {}) };
}

async function serveCatalog(c: Context, route: CatalogRoute, parts: Parts, state: CatalogState): Promise<Response> {
  const scope = c.get('scope');
  const trail = c.get('audit');
  scope.log.path = pathTemplate(route.prefix, route.pattern);
  trail.request.mountType = 'catalog';
  trail.request.mountPoint = `${route.prefix}/`;
  const { method, handler } = handlerFor(c, route);
  trail.request.operation = OPERATION[method];
  const { token, body } = await readInput(c, method, parts.settings);
  // Named in errors as asked (the route's pattern is internal).
  const hit = { route, params: paramsOf(c), name: (scope.path ?? '').slice(0, 256) };
  const early = method === 'GET' ? earlyReads(scope.url.searchParams, hit, parts) : undefined;
  if (method === 'PUT') prepareWrite(c.req.method, scope.url.searchParams, hit, parts);
  const access = await resolveAccess(parts.deps, parts.settings, token, scope.remoteAddress);
  await trail.record();
  const reply = await run(scope.url, hit, method, handler, parts, access, state, body, c.req.raw.signal, early);
  if (reply.index !== undefined) state.index = reply.index;
  state.filtered = reply.filtered === true && access.tokenValid;
  // A write answers the index it moved to (or past), known without another read.
  if (method !== 'GET') state.index = parts.index.highest();
  if (trail.enabled) trail.response = auditOf(reply);
  return replyResponse(reply, scope.pretty, headersOf(parts, state, scope.id));
}

/** What a GET reads early: the index, or for one KV key its entry (KvStore.find). */
interface EarlyReads {
  index?: Promise<number>;
  found?: Promise<Found>;
}

/**
 * The reads a plain GET makes, started while its token is checked. Nothing read is opened,
 * used or answered before access is granted; a blocking read reads after its wait instead.
 * Failures are left for the request to meet when it uses the reads (none is unhandled meanwhile).
 */
function earlyReads(
  q: URLSearchParams,
  hit: { route: CatalogRoute; params: Record<string, string> },
  parts: Parts,
): EarlyReads | undefined {
  if (hit.route.blocking && q.has('index')) return undefined;
  const key = hit.route.entryKey?.(hit.params, q);
  const read = key === undefined ? { index: parts.index.current() } : { found: parts.kv.find(key) };
  void (read.index ?? read.found)?.catch(() => undefined);
  return read;
}

/**
 * A write of one KV key reads what it will condition on while its token is checked, unless this
 * process knows it already (KvStore.prepare): versions only, nothing answered.
 */
function prepareWrite(verb: string, q: URLSearchParams, hit: { route: CatalogRoute; params: Record<string, string> }, parts: Parts): void {
  const key = verb === 'PUT' ? hit.route.entryKey?.(hit.params, q) : undefined;
  if (key !== undefined) parts.kv.prepare(key);
}

/** The read of one KV key (route.entryKey) a GET makes: early, blocking, or when asked. */
function entryRead(
  parts: Parts,
  key: string,
  early: EarlyReads | undefined,
  block: { index: number; waitMs: number } | undefined,
  signal: AbortSignal,
) {
  const started = early?.found;
  return {
    key,
    found: () => (block ? parts.kv.watch(key, block.index, block.waitMs, signal) : (started ?? parts.kv.find(key))),
  };
}

async function run(
  url: URL,
  hit: { route: CatalogRoute; params: Record<string, string>; name: string },
  method: Method,
  handler: NonNullable<CatalogRoute['methods'][Method]>,
  parts: Parts,
  access: CatalogAccess,
  state: { index?: number },
  body: Uint8Array,
  signal: AbortSignal,
  early?: EarlyReads,
): Promise<CatalogReply> {
  // The query's expressions are checked before any wait, so a bad one answers at once.
  const where = `/v1/${hit.name}`;
  const filter = compileFilter(url.searchParams.get('filter'), hit.route.filter, where);
  const nodeMeta = nodeMetaFilter(url.searchParams, hit.route.nodeMeta === true, where);
  const block = method === 'GET' && hit.route.blocking ? blockingParams(url.searchParams) : undefined;
  const key = method === 'GET' ? hit.route.entryKey?.(hit.params, url.searchParams) : undefined;
  const entry = key === undefined ? undefined : entryRead(parts, key, early, block, signal);
  if (block && !entry) await parts.index.waitPast(block.index, block.waitMs, signal);
  // A read's index is read before the data, so a write the answer misses always moves it further.
  if (method === 'GET' && !entry) state.index = await (early?.index ?? parts.index.current());
  return handler({
    params: hit.params,
    query: url.searchParams,
    filter,
    nodeMeta,
    access,
    body: async (limit) => {
      if (body.length > limit) throw new PayloadTooLarge(limit);
      return body;
    },
    kv: parts.kv,
    catalog: parts.catalog,
    settings: parts.settings,
    ...(entry ? { entry } : {}),
  });
}

function checkQuery(q: URLSearchParams, settings: CatalogConfig): void {
  checkDatacenter(q.get('dc') ?? '', settings.datacenter);
}
