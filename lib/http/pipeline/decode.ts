/**
 * Step 1: what the request asks for. The operation from the method, the canonical path (names
 * declared foldCase lower-cased, canonical-path.ts), the input (a write's body, bounded and
 * parsed, or kept as bytes on a rawBody path; a read's query), and the fields coerced, so that
 * authorization sees the values the handler will use. Errors in the input are kept for validate,
 * which throws them after authorization: an unauthorised caller learns nothing from them.
 */
import { BODY_LIMIT } from '../../config';
import { HttpError } from '../../errors';
import { canonicalPath } from '../canonical-path';
import { parseBody, queryInput, readRawBody, validateFields } from '../input';
import type { OpName, PathSpec } from '../path';
import type { Call } from './call';

/** The operation a method asks for: LIST or `?list=true` (as Vault parses booleans: hvac sends True), GET/HEAD, POST/PUT, DELETE. */
export function operationOf(method: string, url: URL): OpName | undefined {
  switch (method) {
    case 'LIST':
      return 'list';
    case 'GET':
    case 'HEAD':
      return ['1', 't', 'true'].includes((url.searchParams.get('list') ?? '').toLowerCase()) ? 'list' : 'read';
    case 'POST':
    case 'PUT':
      return 'write';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return undefined;
  }
}

/** The methods that ask for each operation, for a 405's message. */
const METHODS_OF: Record<OpName, string> = { read: 'GET', list: 'LIST', write: 'POST/PUT', patch: 'PATCH', delete: 'DELETE' };

/**
 * The operation, or 405 when the path has no handler for it (or it acts and was asked by HEAD):
 * Vault's "unsupported operation", naming the method, the path asked and the methods it takes.
 */
export function operationFor(spec: PathSpec, request: Request, op: OpName | undefined, path = ''): OpName {
  if (!op || !spec.operations[op] || (request.method === 'HEAD' && spec.readActs)) {
    const takes = (Object.keys(METHODS_OF) as OpName[]).filter(
      (o) => spec.operations[o] && !(o === 'read' && request.method === 'HEAD' && spec.readActs),
    );
    const asked = path ? ` on "${path.slice(0, 256)}"` : '';
    throw new HttpError(405, [`unsupported operation: ${request.method}${asked}; it takes ${takes.map((o) => METHODS_OF[o]).join(', ')}`]);
  }
  return op;
}

export async function decode(call: Call): Promise<void> {
  const { c, spec, set, scope, audit } = call;
  const request = c.req.raw;
  const asked = operationOf(request.method, scope.url);
  if (asked === 'list') audit.request.operation = 'list';
  call.op = operationFor(spec, request, asked, scope.path);
  const canonical = canonicalPath(spec.fields, set.prefix, spec.pattern, scope.path ?? '', c.req.param() as Record<string, string>);
  call.full = canonical.full;
  call.rel = canonical.full.slice(set.prefix.length + 1);
  call.params = canonical.params;
  const body = call.op === 'write' || call.op === 'patch' ? await readRawBody(request, BODY_LIMIT) : undefined;
  if (body && spec.rawBody) {
    const contentType = request.headers.get('content-type');
    call.raw = { body, ...(contentType ? { contentType } : {}) };
    call.input = {};
  } else {
    try {
      call.input = body ? parseBody(body, request.headers.get('content-type')) : queryInput(scope.url.searchParams);
    } catch (e) {
      call.input = {};
      call.fields = { error: e };
    }
  }
  audit.request.data = call.raw
    ? { http_raw_body: call.raw.body, ...(call.raw.contentType ? { http_content_type: call.raw.contentType } : {}) }
    : call.input;
  if (call.fields) return;
  // A raw body has no fields to check: only the path parameters (and a read's query) are fields.
  try {
    call.fields = validateFields(spec.fields, call.input, call.params, call.op === 'write' && !call.raw);
  } catch (e) {
    call.fields = { error: e };
  }
}
