/**
 * The surface of sys and the engines on the front door (front-door.ts): the declared paths
 * under their mounts, each request authorised, its input decoded and checked, its result
 * rendered in the reference server's envelope (or raw), wrapped on request.
 */
import type { Context, Hono } from 'hono';
import { BODY_LIMIT } from '../config';
import type { AuditResponse } from '../audit/auditor';
import type { Deps } from '../deps';
import type { Principal } from '../types';
import { MethodNotAllowed, NotFound } from '../errors';
import { accessParams } from './access-params';
import { engineToken, type AccessOp } from './auth';
import { canonicalPath } from './canonical-path';
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

/** The reference envelope's errors; a miss under a known prefix is an unsupported path. */
function envelopeRenderer(prefixes: string[]): Renderer {
  return {
    error: (err, scope) => errorResponse(err.status, err.messages, scope.pretty, scope.id),
    notFound: (path) =>
      new NotFound(
        prefixes.some((p) => path === p || path.startsWith(p + '/'))
          ? `unsupported path "${path}"`
          : `no handler for route "${path.slice(0, 256)}"`,
      ),
  };
}

export function createApp(options: AppOptions): Hono {
  const app = frontDoor(options.name, envelopeRenderer(options.routes.map((r) => r.prefix)), options.deps.audit);
  // Longest prefix first, so "auth/token" wins over a hypothetical "auth"; paths as declared.
  for (const set of [...options.routes].sort((a, b) => b.prefix.length - a.prefix.length)) {
    for (const spec of set.paths) route(app, set.prefix, spec.pattern, (c) => serve(c, set, spec, options.deps));
  }
  return app;
}

async function serve(c: Context, set: RouteSet, spec: PathSpec, deps: Deps): Promise<Response> {
  const scope = c.get('scope');
  const req = c.req.raw;
  // A name the handler folds is folded here, before policies see the path (canonical-path.ts).
  const { full, params } = canonicalPath(spec.fields, set.prefix, spec.pattern, fullPath(scope), paramsOf(c));
  const rel = full.slice(set.prefix.length + 1);
  scope.log.mount = set.mount.path;
  scope.log.path = `${set.prefix}/${spec.pattern}`;
  const audit = scope.audit.request;
  audit.mountType = set.mount.type;
  audit.mountPoint = `${set.prefix}/`;
  if (set.mount.auditClearRequestKeys) audit.clearKeys = set.mount.auditClearRequestKeys;
  const op = operationOf(req.method, scope.url);
  if (op === 'list') audit.operation = 'list';
  const handler = op && spec.operations[op];
  if (!op || !handler || (req.method === 'HEAD' && spec.readActs)) throw new MethodNotAllowed(req.method);

  const { input, badInput, body } = await decodeInput(req, scope.url, op, spec);
  audit.data = body ? { http_raw_body: body.body, ...(body.contentType ? { http_content_type: body.contentType } : {}) } : input;
  // Fields are coerced before authorization, so parameter constraints hold on the values the
  // handler will use; a field error is thrown after it, so an unauthorised caller learns nothing.
  // A raw body has no fields to check: only the path parameters (and a read's query) are fields.
  const fields = badInput ? undefined : checkFields(spec, input, params, op === 'write' && !body);
  const part = deps.store.partition(partitionName(set.mount));
  const token = engineToken(req.headers);
  if (token) audit.clientToken = token;
  const coerced = fields && 'data' in fields ? fields.data : undefined;
  let principal: Principal | undefined;
  if (!spec.unauthenticated?.includes(op)) {
    // A write is create or update by the path's existence check, as policies (and the audit record) name it.
    const accessAs = await accessOp(op, spec, { params, mount: set.mount, part, deps });
    audit.operation = accessAs;
    principal = await deps.authorizer.authorize({
      token,
      path: accessPath(full, op),
      op: accessAs,
      sudo: spec.sudo?.includes(op) ?? false,
      params: accessParams(spec.fields, input, coerced, coerced ? spec.derivedParams : undefined),
      ...(op === 'read' && spec.readLists ? { listing: accessPath(full, 'list') } : {}),
      ...(scope.remoteAddress ? { remoteAddress: scope.remoteAddress } : {}),
    });
    audit.principal = principal;
  }
  if (badInput) throw badInput;
  if (!fields || 'error' in fields) throw fields?.error;
  const { data, ignored } = fields;
  const warning = ignoredWarning(ignored);

  // A HEAD discards its body, so it is never wrapped (no wrapping token nobody can read).
  const wrap: WrapContext = {
    headers: req.headers,
    deps,
    path: full,
    requestId: scope.id,
    pretty: scope.pretty,
    input,
    warning,
    noWrap: req.method === 'HEAD',
  };
  if (principal) wrap.principal = principal;
  // Recorded before anything changes: no audit device, no action (fail closed).
  await scope.audit.record();
  const result: Result = await withWrapping(
    wrap,
    async () =>
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
        ...(req.method === 'HEAD' ? { head: true } : {}),
        ...(scope.remoteAddress ? { remoteAddress: scope.remoteAddress } : {}),
        deps,
        ...body,
      })) ?? {},
  );
  if (scope.auditing) scope.audit.response = auditResponse(result, set.mount);
  return respond(result, scope.id, scope.pretty, warning);
}

/** What the audit log records of an answer: the envelope's parts, or the raw body (JSON parsed, else hashed whole). */
function auditResponse(result: Result, mount: MountRef): AuditResponse {
  const clear = mount.auditClearResponseKeys ? { clearKeys: mount.auditClearResponseKeys } : {};
  if (result.raw) {
    const status = result.raw.status ?? 200;
    if (typeof result.raw.body === 'string' && result.raw.contentType.startsWith('application/json')) {
      const parsed = parseJson(result.raw.body);
      if (isEnvelope(parsed)) {
        return {
          status,
          data: parsed.data ?? undefined,
          ...(parsed.lease_id ? { leaseId: parsed.lease_id } : {}),
          ...(parsed.auth ? { auth: parsed.auth } : {}),
          ...(parsed.wrap_info ? { wrapInfo: parsed.wrap_info } : {}),
          ...(parsed.warnings ? { warnings: parsed.warnings } : {}),
          ...clear,
        };
      }
      if (parsed !== undefined) return { status, data: parsed, ...clear };
    }
    return { status, raw: { body: result.raw.body, contentType: result.raw.contentType } };
  }
  return {
    status: result.status ?? (result.data !== undefined || result.auth !== undefined ? 200 : 204),
    ...(result.data !== undefined ? { data: result.data } : {}),
    ...(result.lease ? { leaseId: result.lease.id } : {}),
    ...(result.auth ? { auth: result.auth } : {}),
    ...(result.warnings?.length ? { warnings: result.warnings } : {}),
    ...clear,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

interface EnvelopeLike {
  request_id: string;
  data?: unknown;
  lease_id?: string;
  auth?: unknown;
  wrap_info?: unknown;
  warnings?: string[];
}

function isEnvelope(v: unknown): v is EnvelopeLike {
  return typeof v === 'object' && v !== null && 'request_id' in v && 'wrap_info' in v;
}

interface Decoded {
  input: Record<string, unknown>;
  /** A malformed body, thrown after authorization so an unauthorised caller learns nothing. */
  badInput?: unknown;
  /** On a write to a rawBody path: the bytes and content type for the handler. */
  body?: { body: Uint8Array; contentType?: string };
}

/** The path's fields validated and coerced, or the error to throw once the caller is authorised. */
function checkFields(
  spec: PathSpec,
  input: Record<string, unknown>,
  params: Record<string, string>,
  write: boolean,
): ReturnType<typeof validateFields> | { error: unknown } {
  try {
    return validateFields(spec.fields, input, params, write);
  } catch (e) {
    return { error: e };
  }
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
  return jsonResponse(result.status ?? 200, envelope(requestId, result, warnings), pretty, {
    ...headers,
    'content-type': 'application/json',
  });
}
