/**
 * The answers the OpenAPI document describes: the envelope of sys and the engines (with `data`
 * an object), the catalog's bare JSON, raw bodies, the error bodies (`{"errors": [...]}` on sys
 * and the engines, plain text on the catalog), and the token headers as security schemes.
 */
type Doc = Record<string, unknown>;

/** Sys and the engines answer the envelope; the catalog answers the reference catalog's bare JSON. */
export type Surface = 'envelope' | 'catalog';

const nullable = (schema: Doc): Doc => ({ ...schema, nullable: true });

const envelope: Doc = {
  type: 'object',
  description: 'The response envelope; `data` holds the answer.',
  properties: {
    request_id: { type: 'string' },
    lease_id: { type: 'string' },
    renewable: { type: 'boolean' },
    lease_duration: { type: 'integer' },
    data: nullable({ type: 'object', additionalProperties: true }),
    wrap_info: nullable({ type: 'object', additionalProperties: true }),
    warnings: nullable({ type: 'array', items: { type: 'string' } }),
    auth: nullable({ type: 'object', additionalProperties: true }),
  },
  required: ['request_id', 'lease_id', 'renewable', 'lease_duration', 'data', 'wrap_info', 'warnings', 'auth'],
};

const listEnvelope: Doc = {
  allOf: [
    { $ref: '#/components/schemas/Envelope' },
    {
      type: 'object',
      properties: { data: { type: 'object', properties: { keys: { type: 'array', items: { type: 'string' } } }, required: ['keys'] } },
    },
  ],
};

const errorBody: Doc = {
  type: 'object',
  description: 'What went wrong, one message per problem.',
  properties: { errors: { type: 'array', items: { type: 'string' } } },
  required: ['errors'],
};

const ERRORS: Record<string, string> = {
  '400': 'Invalid request: the messages name the problem',
  '403': 'Permission denied: no token, a bad token, or a policy that does not allow the operation',
  '404': 'Not found',
  '405': 'Method not allowed',
  '413': 'Request body too large',
};

const apiKey = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });

export const components: Doc = {
  schemas: { Envelope: envelope, ListEnvelope: listEnvelope, Errors: errorBody },
  responses: Object.fromEntries(
    Object.entries(ERRORS).flatMap(([code, description]) => [
      [`Error${code}`, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Errors' } } } }],
      [`CatalogError${code}`, { description, content: { 'text/plain': { schema: { type: 'string' } } } }],
    ]),
  ),
  securitySchemes: {
    SvcToken: apiKey('X-Svc-Token', 'The client token (sys and the engines).'),
    VaultToken: apiKey('X-Vault-Token', "The client token, under Vault's header name."),
    CatalogToken: apiKey('X-Catalog-Token', "The catalog token; without one the catalog's default or anonymous token applies."),
    ConsulToken: apiKey('X-Consul-Token', "The catalog token, under Consul's header name."),
  },
};

/** Who may call an operation: nobody needs a token on an open one; the catalog's token is optional. */
export function securityOf(surface: Surface, open: boolean): Doc[] | undefined {
  if (open) return [];
  return surface === 'catalog' ? [{ CatalogToken: [] }, { ConsulToken: [] }, {}] : undefined;
}

export function jsonBody(schema: Doc): Doc {
  return { content: { 'application/json': { schema } } };
}

/** The error answers of an operation; 413 only where a request body is taken. */
export function errorResponses(surface: Surface, withBody: boolean): Doc {
  const codes = Object.keys(ERRORS).filter((c) => withBody || c !== '413');
  const prefix = surface === 'catalog' ? 'CatalogError' : 'Error';
  return Object.fromEntries(codes.map((c) => [c, { $ref: `#/components/responses/${prefix}${c}` }]));
}

/** The success answers: the envelope (a list's with `data.keys`), or 204 where nothing is answered. */
export function okResponses(surface: Surface, op: 'read' | 'list' | 'write' | 'delete'): Doc {
  if (surface === 'catalog') return { '200': { description: 'OK', ...jsonBody({}) } };
  const schema = { $ref: `#/components/schemas/${op === 'list' ? 'ListEnvelope' : 'Envelope'}` };
  const ok = { '200': { description: 'OK', ...jsonBody(schema) } };
  return op === 'read' || op === 'list' ? ok : { ...ok, '204': { description: 'No content: the operation answers no body' } };
}

/** A raw answer's content: PEM and other text as strings, the rest as bytes. */
export function rawContent(contentTypes: readonly string[]): Doc {
  const text = (t: string) => t.startsWith('text/') || t.includes('pem');
  return Object.fromEntries(contentTypes.map((t) => [t, { schema: text(t) ? { type: 'string' } : { type: 'string', format: 'binary' } }]));
}
