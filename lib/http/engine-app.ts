/**
 * The one Hono app shape every function uses: routes are the declared paths under their
 * mounts; auth, input, envelope, errors and the request log line are done here, once.
 */
import { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { BODY_LIMIT } from '../config';
import type { Deps } from '../deps';
import { httpErrorOf, MethodNotAllowed, NotFound } from '../errors';
import { logError, logInfo } from '../log';
import { engineToken, type AccessOp } from './auth';
import { envelope, errorResponse, jsonResponse } from './envelope';
import { ignoredWarning, parseBody, queryInput, readRawBody, validateFields } from './input';
import { compile, match, partitionName, type CompiledPath, type ExistsReq, type MountRef, type OpName, type PathSpec, type Result } from './path';
import { decodedPath, hasPretty } from './request-path';
import { withWrapping, type WrapContext } from './wrap-response';

export interface RouteSet {
  /** The first segments of the path after /v1/: a mount path, or "sys", "auth/token". */
  prefix: string;
  mount: MountRef;
  paths: PathSpec[];
}

interface CompiledSet extends RouteSet {
  compiled: CompiledPath[];
}

export interface AppOptions {
  name: string;
  deps: Deps;
  routes: RouteSet[];
}

export function compileRoutes(routes: RouteSet[]): CompiledSet[] {
  // Longest prefix first, so "auth/token" wins over a hypothetical "auth".
  return routes.map((r) => ({ ...r, compiled: r.paths.map(compile) })).sort((a, b) => b.prefix.length - a.prefix.length);
}

export function operationOf(method: string, url: URL): OpName | undefined {
  switch (method) {
    case 'LIST':
      return 'list';
    case 'GET':
    case 'HEAD':
      // HEAD is the GET answer without its body (createApp drops it): same operation, same policy.
      // Parsed as the reference server parses booleans: hvac sends list=True.
      return ['1', 't', 'true'].includes((url.searchParams.get('list') ?? '').toLowerCase()) ? 'list' : 'read';
    case 'POST':
    case 'PUT':
      return 'write';
    case 'DELETE':
      return 'delete';
    default:
      return undefined;
  }
}

export function createApp(options: AppOptions): Hono {
  const sets = compileRoutes(options.routes);
  const app = new Hono();
  app.all('*', async (c) => {
    const started = performance.now();
    const requestId = randomUUID();
    const req = c.req.raw;
    const url = new URL(req.url);
    const pretty = hasPretty(url);
    const log: Record<string, unknown> = { request_id: requestId, function: options.name, method: req.method };
    let res: Response;
    try {
      res = await serve(req, url, requestId, pretty, sets, options.deps, log);
    } catch (e) {
      const err = httpErrorOf(e);
      if (err.status >= 500) logError('request-fault', log, err.cause ?? err);
      res = errorResponse(err.status, err.messages, pretty, requestId);
    }
    if (req.method === 'HEAD') res = new Response(null, res);
    log.status = res.status;
    log.duration_ms = Math.round((performance.now() - started) * 100) / 100;
    logInfo('request', log);
    return res;
  });
  return app;
}

async function serve(
  req: Request,
  url: URL,
  requestId: string,
  pretty: boolean,
  sets: CompiledSet[],
  deps: Deps,
  log: Record<string, unknown>,
): Promise<Response> {
  const path = decodedPath(url);
  if (!path.startsWith('/v1/')) throw new NotFound(`no handler for route "${path}"`);
  const full = path.slice(4);
  const set = sets.find((s) => full === s.prefix || full.startsWith(s.prefix + '/'));
  if (!set) throw new NotFound(`no handler for route "${full}"`);
  log.mount = set.mount.path;
  const rel = full.slice(set.prefix.length + 1);
  const hit = match(set.compiled, rel);
  if (!hit) throw new NotFound(`unsupported path "${full}"`);
  log.path = `${set.prefix}/${hit.spec.pattern}`;
  const op = operationOf(req.method, url);
  const handler = op && hit.spec.operations[op];
  if (!op || !handler || (req.method === 'HEAD' && hit.spec.readActs)) throw new MethodNotAllowed(req.method);

  const { input, badInput, body } = await decodeInput(req, url, op, hit.spec);
  const part = deps.store.partition(partitionName(set.mount));
  const token = engineToken(req.headers);
  const principal = hit.spec.unauthenticated?.includes(op)
    ? undefined
    : await deps.authorizer.authorize({
        token,
        path: accessPath(full, op),
        op: await accessOp(op, hit.spec, { params: hit.params, mount: set.mount, part, deps }),
        sudo: hit.spec.sudo?.includes(op) ?? false,
        data: input,
      });
  if (badInput) throw badInput;
  // A raw body has no fields to check: only the path parameters (and a read's query) are fields.
  const { data, ignored } = validateFields(hit.spec.fields, input, hit.params, op === 'write' && !body);
  const warning = ignoredWarning(ignored);
  // A HEAD discards its body, so it is never wrapped (no wrapping token nobody can read).
  const wrap: WrapContext = { headers: req.headers, deps, path: full, requestId, pretty, input, warning, noWrap: req.method === 'HEAD' };
  if (principal) wrap.principal = principal;
  const result: Result = await withWrapping(wrap, async () =>
    (await handler({
      data,
      op,
      mount: set.mount,
      part,
      path: rel,
      requestId,
      ...(principal ? { principal } : {}),
      ...(token ? { token } : {}),
      headers: req.headers,
      deps,
      ...body,
    })) ?? {},
  );
  return respond(result, requestId, pretty, warning);
}

interface Decoded {
  input: Record<string, unknown>;
  /** A malformed body, thrown after authorization so an unauthorised caller learns nothing. */
  badInput?: unknown;
  /** On a write to a rawBody path: the bytes and content type for the handler. */
  body?: { body: Uint8Array; contentType?: string };
}

/** A write's body (bounded, then parsed, or kept as bytes on a rawBody path); else the query. */
async function decodeInput(req: Request, url: URL, op: OpName, spec: PathSpec): Promise<Decoded> {
  const raw = op === 'write' ? await readRawBody(req, BODY_LIMIT) : undefined;
  if (raw && spec.rawBody) {
    const contentType = req.headers.get('content-type');
    return { input: {}, body: { body: raw, ...(contentType ? { contentType } : {}) } };
  }
  try {
    return { input: raw ? parseBody(raw, req.headers.get('content-type')) : queryInput(url.searchParams) };
  } catch (e) {
    return { input: {}, badInput: e };
  }
}

/** Policies see a LIST on the path with a trailing slash, every other operation without one. */
export function accessPath(full: string, op: OpName): string {
  const bare = full.replace(/\/+$/, '');
  return op === 'list' ? `${bare}/` : bare;
}

/** A write is `create` or `update` by the path's existence check; `update` where it has none. */
async function accessOp(op: OpName, spec: PathSpec, at: ExistsReq): Promise<AccessOp> {
  if (op !== 'write') return op;
  if (!spec.exists) return 'update';
  return (await spec.exists(at)) ? 'update' : 'create';
}

/** The result's headers (names lower-cased), then the edge's own, which win. */
function responseHeaders(result: Result, requestId: string, contentType?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) out[k.toLowerCase()] = v;
  out['x-request-id'] = requestId;
  if (contentType) out['content-type'] = contentType;
  return out;
}

function respond(result: Result, requestId: string, pretty: boolean, ignoredWarn: string | undefined): Response {
  if (result.raw) {
    const body = result.raw.body;
    return new Response(typeof body === 'string' ? body : new Uint8Array(body), {
      status: result.raw.status ?? 200,
      headers: responseHeaders(result, requestId, result.raw.contentType),
    });
  }
  const headers = responseHeaders(result, requestId);
  const warnings = [...(result.warnings ?? [])];
  const hasBody = result.data !== undefined || result.auth !== undefined || result.lease !== undefined || warnings.length > 0;
  if (!hasBody) return new Response(null, { status: result.status ?? 204, headers });
  if (ignoredWarn) warnings.push(ignoredWarn);
  return jsonResponse(result.status ?? 200, envelope(requestId, result, warnings), pretty, { ...headers, 'content-type': 'application/json' });
}
