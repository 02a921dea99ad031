/**
 * The OpenAPI document, derived from the same path declarations that route requests. Paths
 * carry the reference server's extensions on the path item: `x-vault-sudo` (an operation needs
 * sudo) and `x-vault-unauthenticated` (an operation is served without a token); the older
 * `x-unauthenticated` lists those operations.
 */
import type { Field } from './fields';
import type { RouteSet } from './engine-app';
import type { PathSpec } from './path';

/** Paths the HTTP layer lets through without a token because the handler checks tokens itself. */
const handlerAuthenticated = new WeakSet<PathSpec>();

/** Marks `spec` as checking tokens in its handler: not unauthenticated, though the HTTP layer skips the check. */
export function authenticatedByHandler(spec: PathSpec): PathSpec {
  handlerAuthenticated.add(spec);
  return spec;
}

function extensions(spec: PathSpec): Record<string, unknown> {
  const open = handlerAuthenticated.has(spec) ? [] : (spec.unauthenticated ?? []);
  return {
    ...(spec.sudo?.length ? { 'x-vault-sudo': true } : {}),
    ...(open.length ? { 'x-vault-unauthenticated': true, 'x-unauthenticated': open } : {}),
  };
}

function schemaOf(field: Field): Record<string, unknown> {
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

export function openApiDocument(routes: RouteSet[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const set of routes) {
    for (const spec of set.paths) {
      const template = spec.pattern.replace(/[:*]([A-Za-z_]+)/g, '{$1}');
      const url = `/${set.prefix}/${template}`;
      const entries = Object.entries(spec.fields);
      const pathParams = entries
        .filter(([, fl]) => fl.in === 'path')
        .map(([name, fl]) => ({ name, in: 'path', required: true, schema: schemaOf(fl) }));
      const body = entries.filter(([, fl]) => fl.in !== 'path');
      const properties = Object.fromEntries(body.map(([n, fl]) => [n, schemaOf(fl)]));
      const required = body.filter(([, fl]) => fl.required).map(([n]) => n);
      const ops: Record<string, unknown> = {};
      const common = (summary: string, extra: Record<string, unknown> = {}) => ({
        summary,
        ...(pathParams.length ? { parameters: pathParams } : {}),
        responses: { '200': { description: 'OK' }, '204': { description: 'No content' } },
        ...extra,
      });
      const o = spec.operations;
      if (o.read || o.list) {
        ops.get = common(spec.help, {
          parameters: [
            ...pathParams,
            ...(o.list ? [{ name: 'list', in: 'query', required: !o.read, schema: { type: 'string', enum: ['true'] } }] : []),
            ...(o.read ? body.map(([n, fl]) => ({ name: n, in: 'query', required: false, schema: schemaOf(fl) })) : []),
          ],
        });
      }
      if (o.write) {
        ops.post = common(spec.help, {
          requestBody: {
            content: { 'application/json': { schema: { type: 'object', properties, ...(required.length ? { required } : {}) } } },
          },
        });
      }
      if (o.delete) ops.delete = common(spec.help);
      paths[url] = { ...extensions(spec), ...ops };
    }
  }
  return { openapi: '3.0.2', info: { title: 'Latchkey', version, description: 'Latchkey HTTP API' }, paths };
}
