/**
 * Reading request input: the body (JSON or form, bounded), the query, and validating both
 * against a path's fields. Unknown fields are reported back so the envelope can warn.
 */
import { BadRequest, PayloadTooLarge } from '../errors';
import type { Field, Fields } from './fields';
import { checkJsonLimits } from './json-limits';

/** Query parameters that steer the HTTP layer and are never fields. */
const CONTROL_PARAMS = new Set(['list', 'pretty', 'help']);

/**
 * Fails fast on a declared length over the limit, then reads at most `limit` bytes (a chunked
 * body is streamed and cut off there). A body the client stops sending is a 400, not a fault.
 */
export async function readRawBody(req: Request, limit: number): Promise<Uint8Array> {
  const declared = req.headers.get('content-length');
  if (declared && Number(declared) > limit) throw new PayloadTooLarge(limit);
  try {
    return await readBounded(req, limit, declared !== null && declared !== '');
  } catch (e) {
    if (e instanceof PayloadTooLarge) throw e;
    throw new BadRequest('the request body could not be read', { cause: e });
  }
}

async function readBounded(req: Request, limit: number, declared: boolean): Promise<Uint8Array> {
  if (declared) {
    // A declared length bounds the read (Node's parser holds the body to it; an API Gateway
    // body is already in memory), and arrayBuffer() takes the adaptor's direct path, no stream.
    const body = Buffer.from(await req.arrayBuffer());
    if (body.byteLength > limit) throw new PayloadTooLarge(limit);
    return body;
  }
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new PayloadTooLarge(limit);
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/** A write's body as input: JSON (or a form), within the nesting and size limits of json-limits.ts. */
export function parseBody(raw: Uint8Array, contentType: string | null): Record<string, unknown> {
  if (raw.byteLength === 0) return {};
  const text = Buffer.from(raw).toString('utf8');
  if (text.trim() === '') return {};
  // curl --data sends JSON labelled as a form; a body that opens like JSON is read as JSON.
  const looksJson = /^\s*[{[]/.test(text);
  if (!looksJson && contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const form = fromParams(new URLSearchParams(text));
    checkJsonLimits(form, 'the request body');
    return form;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequest('failed to parse JSON input: the request body is not valid JSON');
  }
  checkJsonLimits(parsed, 'the request body');
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new BadRequest('the request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

export function queryInput(query: URLSearchParams): Record<string, unknown> {
  const out = fromParams(query);
  for (const k of CONTROL_PARAMS) delete out[k];
  checkJsonLimits(out, 'the query');
  return out;
}

/** Parameters as input; a repeated one becomes a list, grown in place (linear in the parameters). */
function fromParams(params: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of params) {
    const prev = Object.hasOwn(out, k) ? out[k] : undefined;
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

/**
 * Validates `input` (and the path parameters) against `fields`. Returns the coerced values
 * and the names of input keys no field declares.
 */
export function validateFields(
  fields: Fields,
  input: Record<string, unknown>,
  pathParams: Record<string, string>,
  /** Required body fields are required of writes; reads, lists and deletes take none. */
  write = true,
): { data: Record<string, unknown>; ignored: string[] } {
  const data: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [name, field] of Object.entries(fields)) {
    const raw = field.in === 'path' ? pathParams[name] : input[name];
    const value = coerce(name, field, (write || field.in === 'path') && field.required === true, raw, errors);
    if (value !== undefined) data[name] = value;
  }
  if (errors.length) throw new BadRequest(errors.join('; '));
  const ignored = Object.keys(input).filter((k) => !(k in fields) || fields[k]?.in === 'path');
  return { data, ignored: ignored.sort() };
}

/** A fresh copy of a default, so no handler can change the declared one. */
function copyDefault(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.slice();
  return structuredClone(value);
}

function coerce(name: string, field: Field, required: boolean, raw: unknown, errors: string[]): unknown {
  if (raw === undefined || raw === null) {
    if (required) errors.push(`missing required field "${name}"`);
    return copyDefault(field.default);
  }
  const r = field.schema.safeParse(raw);
  if (!r.success) {
    errors.push(`field "${name}": ${r.error.issues[0]?.message ?? 'invalid value'}`);
    return undefined;
  }
  if (required && r.data === '') errors.push(`missing required field "${name}"`);
  return r.data;
}

export function ignoredWarning(ignored: string[]): string | undefined {
  return ignored.length ? `Endpoint ignored these unrecognized parameters: [${ignored.join(' ')}]` : undefined;
}
