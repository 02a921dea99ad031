/**
 * The catalog function: its own Hono app, because the catalog keeps the reference catalog's
 * conventions (raw bodies, `true`/`false` answers, plain-text errors, index headers, blocking
 * reads) rather than the envelope. It shares the foundation where the rule is the same: the
 * path check, ?pretty, bounded body reading, the token and policy store, the request log line.
 */
import { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import { HttpError, httpErrorOf, NotFound } from '../errors';
import { readRawBody } from '../http/input';
import { decodedPath, hasPretty } from '../http/request-path';
import { logError, logInfo } from '../log';
import { resolveAccess, type CatalogAccess } from './acl';
import { Catalog } from './catalog';
import { compileFilter } from './filter/evaluate';
import { nodeMetaFilter } from './filter/node-meta';
import { blockingParams } from './http/blocking';
import { catalogHeaders, errorText, replyResponse } from './http/respond';
import type { CatalogReply, CatalogRoute, Method } from './http/route';
import { catalogToken } from './http/token';
import { KvStore } from './kv';
import { ModifyIndex } from './modify-index';
import { checkDatacenter } from './register-body';
import { catalogRouter } from './routes';
import { catalogSettings, type CatalogConfig } from './settings';

export const CATALOG_PARTITION = 'catalog';

interface Parts {
  deps: Deps;
  settings: CatalogConfig;
  index: ModifyIndex;
  kv: KvStore;
  catalog: Catalog;
}

export function createCatalogApp(deps: Deps, settings: CatalogConfig = catalogSettings()): Hono {
  const part = deps.store.partition(CATALOG_PARTITION);
  const index = new ModifyIndex(part);
  const parts: Parts = { deps, settings, index, kv: new KvStore(part, deps.sealer, index), catalog: new Catalog(part, index) };
  const app = new Hono();
  app.all('*', async (c) => {
    const started = performance.now();
    const requestId = randomUUID();
    const log: Record<string, unknown> = { request_id: requestId, function: 'catalog', method: c.req.method };
    const state: { index?: number; filtered: boolean } = { filtered: false };
    let res = await serve(c.req.raw, parts, log, state).catch(async (e: unknown) => {
      const err = httpErrorOf(e);
      if (err.status >= 500) logError('request-fault', log, err.cause ?? err);
      state.index ??= await index.current().catch(() => undefined);
      return errorText(err.status, err.messages.join('; '), headersOf(parts, state, requestId));
    });
    // Responses built by serve() carry their headers already; errors got them above.
    // A HEAD is answered as its GET, without the body.
    if (c.req.method === 'HEAD') res = new Response(null, res);
    logInfo('request', { ...log, status: res.status, duration_ms: Math.round((performance.now() - started) * 100) / 100 });
    return res;
  });
  return app;
}

function headersOf(parts: Parts, state: { index?: number; filtered: boolean }, requestId: string) {
  return catalogHeaders({
    requestId,
    defaultPolicy: parts.settings.defaultPolicy,
    translate: parts.settings.translateWanAddrs,
    filtered: state.filtered,
    ...(state.index !== undefined ? { index: state.index } : {}),
  });
}

const METHODS: Record<string, Method> = { GET: 'GET', HEAD: 'GET', PUT: 'PUT', POST: 'PUT', DELETE: 'DELETE' };

async function serve(req: Request, parts: Parts, log: Record<string, unknown>, state: { index?: number; filtered: boolean }): Promise<Response> {
  const path = decodedPath(req.url);
  const url = new URL(req.url);
  const hit = path.startsWith('/v1/') ? catalogRouter.find(path.slice(4)) : undefined;
  if (!hit) throw new NotFound(`no handler for route "${path.slice(0, 256)}"`);
  log.path = hit.name;
  const method = req.method === 'POST' && hit.route.putOnly ? undefined : METHODS[req.method];
  const handler = method && hit.route.methods[method];
  if (!method || !handler) throw new HttpError(405, [`method ${req.method} not allowed`]);
  checkQuery(url.searchParams, parts.settings);
  const access = await resolveAccess(parts.deps, parts.settings, catalogToken(req.headers, url.searchParams));
  const reply = await run(req, url, hit, method, handler, parts, access, state);
  state.filtered = reply.filtered === true && access.tokenValid;
  // A write answers the index it moved to (or past), known without another read.
  if (method !== 'GET') state.index = parts.index.highest();
  return replyResponse(reply, hasPretty(req.url), headersOf(parts, state, log.request_id as string));
}

async function run(
  req: Request,
  url: URL,
  hit: { route: CatalogRoute; params: Record<string, string>; name: string },
  method: Method,
  handler: NonNullable<CatalogRoute['methods'][Method]>,
  parts: Parts,
  access: CatalogAccess,
  state: { index?: number },
): Promise<CatalogReply> {
  // The query's expressions are checked before any wait, so a bad one answers at once.
  const where = `/v1/${hit.name}`;
  const filter = compileFilter(url.searchParams.get('filter'), hit.route.filter, where);
  const nodeMeta = nodeMetaFilter(url.searchParams, hit.route.nodeMeta === true, where);
  const block = method === 'GET' && hit.route.blocking ? blockingParams(url.searchParams) : undefined;
  if (block) await parts.index.waitPast(block.index, block.waitMs, req.signal);
  // A read's index is read before the data, so a write the answer misses always moves it further.
  if (method === 'GET') state.index = await parts.index.current();
  return handler({
    params: hit.params,
    query: url.searchParams,
    filter,
    nodeMeta,
    access,
    body: (limit) => readRawBody(req, limit),
    kv: parts.kv,
    catalog: parts.catalog,
    settings: parts.settings,
  });
}

function checkQuery(q: URLSearchParams, settings: CatalogConfig): void {
  checkDatacenter(q.get('dc') ?? '', settings.datacenter);
}
