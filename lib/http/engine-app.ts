/**
 * The surface of sys and the engines on the front door (front-door.ts): the declared paths
 * under their mounts, each request authorised, its input decoded and checked, its result
 * rendered in the reference server's envelope (or raw), wrapped on request.
 */
import type { Context, Hono } from 'hono';
import { BODY_LIMIT } from '../config';
import type { Deps } from '../deps';
import { MethodNotAllowed, NotFound } from '../errors';
import { engineToken, type AccessOp } from './auth';
import { envelope, errorResponse, jsonResponse } from './envelope';
import { ignoredWarning, parseBody, queryInput, readRawBody, validateFields } from './input';
import { frontDoor, fullPath, paramsOf, route, type Renderer } from './front-door';
import { partitionName, type ExistsReq, type MountRef, type OpName, type PathSpec, type Result } from './path';
import { withWrapping, type WrapContext } from './wrap-response';

export interface RouteSet {
  /** The first segments of the path after /v1/: a mount path, or "sys", "auth/token". */
  prefix: string;
  mount: MountRef;
  paths: PathSpec[];
}

export interface AppOptions {
  name: string;
  deps: Deps;
  routes: RouteSet[];
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

const envelopeRenderer: Renderer = {
  error: (err, scope) => errorResponse(err.status, err.messages, scope.pretty, scope.id),
  notFound: (path) => new NotFound(`no handler for route "${path.slice(0, 256)}"`),
};

export function createApp(options: AppOptions): Hono {
  const app = frontDoor(options.name, envelopeRenderer);
  // Longest prefix first, so "auth/token" wins over a hypothetical "auth"; paths as declared.
  for (const set of [...options.routes].sort((a, b) => b.prefix.length - a.prefix.length)) {
    for (const spec of set.paths) route(app, set.prefix, spec.pattern, (c) => serve(c, set, spec, options.deps));
  }
  // A path under a known prefix that no declaration takes.
  const prefixes = options.routes.map((r) => r.prefix);
  const notFound = envelopeRenderer.notFound;
  envelopeRenderer.notFound = (path) =>
    prefixes.some((p) => path === p || path.startsWith(p + '/')) ? new NotFound(`unsupported path "${path}"`) : notFound(path);
  return app;
}

async function serve(c: Context, set: RouteSet, spec: PathSpec, deps: Deps): Promise<Response> {
  const scope = c.get('scope');
  const req = c.req.raw;
  const full = fullPath(scope);
  const rel = full.slice(set.prefix.length + 1);
  scope.log.mount = set.mount.path;
  scope.log.path = `${set.prefix}/${spec.pattern}`;
  const op = operationOf(req.method, scope.url);
  const handler = op && spec.operations[op];
  if (!op || !handler || (req.method === 'HEAD' && spec.readActs)) throw new MethodNotAllowed(req.method);
  const params = paramsOf(c);

  const { input, badInput, body } = await decodeInput(req, scope.url, op, spec);
  const part = deps.store.partition(partitionName(set.mount));
  const token = engineToken(req.headers);
  const principal = spec.unauthenticated?.includes(op)
    ? undefined
    : await deps.authorizer.authorize({
        token,
        path: accessPath(full, op),
        op: await accessOp(op, spec, { params, mount: set.mount, part, deps }),
        sudo: spec.sudo?.includes(op) ?? false,
        data: input,
      });
  if (badInput) throw badInput;
  // A raw body has no fields to check: only the path parameters (and a read's query) are fields.
  const { data, ignored } = validateFields(spec.fields, input, params, op === 'write' && !body);
  const warning = ignoredWarning(ignored);
  // A HEAD discards its body, so it is never wrapped (no wrapping token nobody can read).
  const wrap: WrapContext = { headers: req.headers, deps, path: full, requestId: scope.id, pretty: scope.pretty, input, warning, noWrap: req.method === 'HEAD' };
  if (principal) wrap.principal = principal;
  const result: Result = await withWrapping(wrap, async () =>
    (await handler({
      data,
      op,
      mount: set.mount,
      part,
      path: rel,
      requestId: scope.id,
      ...(principal ? { principal } : {}),
      ...(token ? { token } : {}),
      headers: req.headers,
      deps,
      ...body,
    })) ?? {},
  );
  return respond(result, scope.id, scope.pretty, warning);
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
