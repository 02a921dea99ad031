/**
 * The OpenAPI document, derived from the same path declarations that route requests. Paths are
 * written without the `/v1` prefix, which is the document's server. Paths carry the reference
 * server's extensions on the path item: `x-vault-sudo` (an operation needs sudo) and
 * `x-vault-unauthenticated` (an operation is served without a token); the older
 * `x-unauthenticated` lists those operations. Each operation says what it answers: the envelope
 * (sys and the engines) or bare JSON (the catalog), raw content types where a path declares
 * them (`answers` on the declaration), and the error bodies.
 */
import type { Field } from './fields';
import type { RouteSet } from './path';
import type { OpName, PathSpec } from './path';
import { components, errorResponses, jsonBody, okResponses, rawContent, securityOf, type Surface } from './openapi-shapes';

type Doc = Record<string, unknown>;

/** The operations served without a token (not those whose handler checks the token itself). */
function openOps(spec: PathSpec): readonly OpName[] {
  return spec.handlerChecksToken ? [] : (spec.unauthenticated ?? []);
}

function extensions(spec: PathSpec): Doc {
  const open = openOps(spec);
  return {
    ...(spec.sudo?.length ? { 'x-vault-sudo': true } : {}),
    ...(open.length ? { 'x-vault-unauthenticated': true, 'x-unauthenticated': open } : {}),
  };
}

function schemaOf(field: Field): Doc {
  const base = { description: field.description || undefined };
  switch (field.kind) {
    case 'int':
      return { ...base, type: 'integer' };
    case 'bool':
      return { ...base, type: 'boolean' };
    case 'duration':
      return { ...base, type: 'string', format: 'duration' };
    case 'list':
      return { ...base, type: 'array', items: { type: 'string' } };
    case 'map':
      return { ...base, type: 'object', additionalProperties: { type: 'string' } };
    case 'object':
      return { ...base, type: 'object' };
    case 'any':
      return base;
    default:
      return { ...base, type: 'string', ...(field.enum ? { enum: field.enum } : {}) };
  }
}

/** What one path item is built from. */
interface Item {
  spec: PathSpec;
  surface: Surface;
  pathParams: Doc[];
  fields: [string, Field][];
  /** A write takes its body as sent; the other fields are query parameters. */
  rawBody: boolean;
}

function itemOf(spec: PathSpec, surface: Surface): Item {
  const entries = Object.entries(spec.fields);
  const pathParams = entries
    .filter(([, fl]) => fl.in === 'path')
    .map(([name, fl]) => ({ name, in: 'path', required: true, schema: schemaOf(fl) }));
  const rawBody = spec.rawBody === true;
  return { spec, surface, pathParams, fields: entries.filter(([, fl]) => fl.in !== 'path'), rawBody };
}

const queryParams = (item: Item) => item.fields.map(([n, fl]) => ({ name: n, in: 'query', required: false, schema: schemaOf(fl) }));

/** The operation's common parts: summary, parameters, security and error answers. */
function operation(item: Item, ops: OpName[], extra: { parameters?: Doc[]; requestBody?: Doc; ok: Doc; withBody?: boolean }): Doc {
  const open = openOps(item.spec);
  const security = securityOf(
    item.surface,
    ops.some((op) => open.includes(op)),
  );
  const parameters = extra.parameters ?? item.pathParams;
  return {
    summary: item.spec.help,
    ...(parameters.length ? { parameters } : {}),
    ...(extra.requestBody ? { requestBody: extra.requestBody } : {}),
    ...(security ? { security } : {}),
    responses: { ...extra.ok, ...errorResponses(item.surface, extra.withBody ?? false) },
  };
}

function getOp(item: Item): Doc {
  const o = item.spec.operations;
  const list = o.list ? [{ name: 'list', in: 'query', required: !o.read, schema: { type: 'string', enum: ['true'] } }] : [];
  const raw = item.spec.answers;
  const ok = raw
    ? { '200': { description: 'The bytes themselves', content: rawContent(raw) } }
    : okResponses(item.surface, o.read ? 'read' : 'list');
  const ops: OpName[] = [...(o.read ? ['read' as const] : []), ...(o.list ? ['list' as const] : [])];
  return operation(item, ops, { parameters: [...item.pathParams, ...list, ...(o.read ? queryParams(item) : [])], ok });
}

function writeOp(item: Item): Doc {
  if (item.rawBody) {
    const requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } };
    return operation(item, ['write'], {
      parameters: [...item.pathParams, ...queryParams(item)],
      requestBody,
      ok: okResponses(item.surface, 'write'),
      withBody: true,
    });
  }
  const properties = Object.fromEntries(item.fields.map(([n, fl]) => [n, schemaOf(fl)]));
  const required = item.fields.filter(([, fl]) => fl.required).map(([n]) => n);
  const requestBody = jsonBody({ type: 'object', properties, ...(required.length ? { required } : {}) });
  return operation(item, ['write'], { requestBody, ok: okResponses(item.surface, 'write'), withBody: true });
}

/** A PATCH takes the fields it changes, none required, as JSON (merge-patch). */
function patchOp(item: Item): Doc {
  const properties = Object.fromEntries(item.fields.map(([n, fl]) => [n, schemaOf(fl)]));
  const requestBody = { required: true, content: { 'application/merge-patch+json': { schema: { type: 'object', properties } } } };
  return operation(item, ['patch'], { requestBody, ok: okResponses(item.surface, 'write'), withBody: true });
}

function deleteOp(item: Item): Doc {
  const parameters = item.rawBody ? [...item.pathParams, ...queryParams(item)] : item.pathParams;
  return operation(item, ['delete'], { parameters, ok: okResponses(item.surface, 'delete') });
}

function pathItem(spec: PathSpec, surface: Surface): Doc {
  const item = itemOf(spec, surface);
  const o = spec.operations;
  return {
    ...extensions(spec),
    ...(o.read || o.list ? { get: getOp(item) } : {}),
    // The catalog writes with PUT (its kv answers POST with 405); sys and the engines take POST or PUT.
    ...(o.write ? { [surface === 'catalog' ? 'put' : 'post']: writeOp(item) } : {}),
    ...(o.patch ? { patch: patchOp(item) } : {}),
    ...(o.delete ? { delete: deleteOp(item) } : {}),
  };
}

export function openApiDocument(routes: RouteSet[], version: string): Doc {
  const paths: Record<string, Doc> = {};
  for (const set of routes) {
    const surface: Surface = set.mount.type === 'catalog' ? 'catalog' : 'envelope';
    for (const spec of set.paths) {
      const template = spec.pattern.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
      paths[`/${set.prefix}/${template}`] = pathItem(spec, surface);
    }
  }
  return {
    openapi: '3.0.2',
    info: { title: 'Latchkey', version, description: 'Latchkey HTTP API' },
    servers: [{ url: '/v1' }],
    security: [{ SvcToken: [] }, { VaultToken: [] }],
    paths,
    components,
  };
}
