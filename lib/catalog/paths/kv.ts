/** `kv/<key>`: GET (raw, keys, separator, recurse), PUT (raw body, flags, cas), DELETE (recurse, cas). */
import { isUtf8 } from 'node:buffer';
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { demand } from '../acl';
import { checkKey, parseFlags, parseUint } from '../names';
import { kvShape } from '../shapes';
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';

/** The reference's value limit (its kv_max_value_size default). */
export const KV_VALUE_LIMIT = 512 * 1024;

const NOT_FOUND: CatalogReply = { status: 404 };

// The value is the raw request body; these are query parameters (for the OpenAPI document).
const queryFields = {
  raw: f.bool({ description: 'answer the value alone' }),
  recurse: f.bool({ description: 'every entry under the key as a prefix' }),
  keys: f.bool({ description: 'only the keys under the prefix' }),
  separator: f.string({ description: 'with keys: cut keys after this separator' }),
  flags: f.string({ description: 'PUT: opaque unsigned 64-bit integer stored with the entry' }),
  cas: f.int({ description: 'PUT/DELETE: only if the ModifyIndex is this (0: only if absent)', min: 0 }),
  index: f.int({ description: 'blocking query: wait for an index past this one', min: 0 }),
  wait: f.string({ description: 'blocking query: how long to wait (at most 20s)' }),
};

const keyFields = { key: f.pathParam({ description: 'the key (URL-decoded)' }), ...queryFields };

const has = (q: URLSearchParams, name: string) => q.has(name);

function conflicting(q: URLSearchParams, ...names: string[]): void {
  if (names.filter((n) => q.has(n)).length > 1) throw new BadRequest(`Conflicting flags: ${names.filter((n) => q.has(n)).join(', ')}`);
}

async function get(ctx: CatalogCtx): Promise<CatalogReply> {
  const { query: q, access } = ctx;
  const listing = has(q, 'keys') || has(q, 'recurse');
  const key = checkKey(ctx.params.key ?? '', listing);
  if (has(q, 'keys')) {
    const sep = q.get('separator') ?? q.get('seperator') ?? '';
    const visible = (k: string) => access.can('kv', k, 'list') || access.can('kv', k, 'read');
    const { keys, filtered } = await ctx.kv.keys(key, sep, visible);
    if (!keys.length && key !== '') return { ...NOT_FOUND, filtered };
    return { json: keys, filtered };
  }
  if (has(q, 'recurse')) {
    const { entries, filtered } = await ctx.kv.list(key, (k) => access.can('kv', k, 'read'));
    return entries.length ? { json: entries.map(kvShape), filtered } : { ...NOT_FOUND, filtered };
  }
  demand(access, 'kv', key, 'read');
  const found = await (ctx.entry?.key === key ? ctx.entry.found() : ctx.kv.find(key));
  if (!found.item) return { ...NOT_FOUND, index: found.index };
  const entry = await ctx.kv.open(found.item);
  const index = found.index;
  if (has(q, 'raw')) {
    const bytes = entry.value ?? Buffer.alloc(0);
    // text/plain as the reference answers; bytes that are not UTF-8 are labelled binary so that
    // API Gateway passes them base64-encoded instead of decoding them as text.
    return { raw: { bytes, contentType: isUtf8(bytes) ? 'text/plain' : 'application/octet-stream' }, index };
  }
  return { json: [kvShape(entry)], index };
}

async function put(ctx: CatalogCtx): Promise<CatalogReply> {
  const q = ctx.query;
  const key = checkKey(ctx.params.key ?? '');
  conflicting(q, 'cas', 'acquire', 'release');
  if (has(q, 'acquire') || has(q, 'release')) throw new BadRequest('Sessions are not supported: acquire and release cannot be used');
  const flags = has(q, 'flags') ? parseFlags(q.get('flags') ?? '') : 0;
  const cas = has(q, 'cas') ? parseUint(q.get('cas') ?? '', 'cas index') : undefined;
  demand(ctx.access, 'kv', key, 'write');
  const value = await ctx.body(KV_VALUE_LIMIT);
  return { json: await ctx.kv.put(key, value, flags, cas) };
}

async function del(ctx: CatalogCtx): Promise<CatalogReply> {
  const { query: q, access } = ctx;
  conflicting(q, 'recurse', 'cas');
  if (has(q, 'recurse')) {
    const prefix = checkKey(ctx.params.key ?? '', true);
    demand(access, 'kv', prefix, 'delete');
    await ctx.kv.deleteTree(prefix, (k) => access.can('kv', k, 'delete'));
    return { json: true };
  }
  const key = checkKey(ctx.params.key ?? '');
  const cas = has(q, 'cas') ? parseUint(q.get('cas') ?? '', 'cas index') : undefined;
  demand(access, 'kv', key, 'delete');
  return { json: await ctx.kv.delete(key, cas) };
}

const methods = { GET: get, PUT: put, DELETE: del };

/** A plain GET of one key (no listing): the key it reads (CatalogRoute.entryKey). */
function entryKey(params: Record<string, string>, query: URLSearchParams): string | undefined {
  if (has(query, 'keys') || has(query, 'recurse')) return undefined;
  try {
    return checkKey(params.key ?? '');
  } catch {
    return undefined; // the handler answers the bad key; nothing is read for it
  }
}
const help = 'Key/value entries: GET reads (raw, keys, recurse), PUT writes the raw body (flags, cas), DELETE removes (recurse, cas).';

export const kvRoutes: CatalogRoute[] = [
  { prefix: 'kv', pattern: '*key', help, fields: keyFields, methods, blocking: true, putOnly: true, rawBody: true, entryKey },
  {
    prefix: 'kv',
    pattern: '',
    help: `${help} The root, for recurse and keys.`,
    fields: queryFields,
    methods,
    blocking: true,
    putOnly: true,
    rawBody: true,
  },
];
