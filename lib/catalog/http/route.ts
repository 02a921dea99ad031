/**
 * Catalog routes as data: a pattern under one of the catalog's prefixes, the fields it reads
 * (for the OpenAPI document), and a handler per method, routed by the front door.
 */
import type { Fields } from '../../http/fields';
import type { OpName, PathSpec } from '../../http/path';
import type { RouteSet } from '../../http/path';
import type { CatalogAccess } from '../acl';
import type { Catalog } from '../catalog';
import type { ItemFilter } from '../filter/evaluate';
import type { NodeMetaTest } from '../filter/node-meta';
import type { FieldType } from '../filter/schema';
import type { Found, KvStore } from '../kv';
import type { CatalogConfig } from '../settings';

export type CatalogPrefix = 'kv' | 'catalog' | 'agent' | 'health' | 'status';
export type Method = 'GET' | 'PUT' | 'DELETE';

export interface CatalogCtx {
  params: Record<string, string>;
  query: URLSearchParams;
  access: CatalogAccess;
  /** The raw request body, at most `limit` bytes (413 beyond). */
  body(limit: number): Promise<Uint8Array>;
  kv: KvStore;
  catalog: Catalog;
  settings: CatalogConfig;
  /** `?filter`: keeps the items whose wire shape matches (identity without one). */
  filter: ItemFilter;
  /** `?node-meta`: whether a node's metadata has every requested pair (true without any). */
  nodeMeta: NodeMetaTest;
  /**
   * A GET of one key (route.entryKey): its read, started before the request's access was known
   * or (blocking) waiting; the handler calls it only once the read is allowed.
   */
  entry?: { key: string; found: () => Promise<Found> };
}

export interface CatalogReply {
  /** A JSON value; `undefined` with status 404 is the reference's empty "not found". */
  json?: unknown;
  raw?: { bytes: Uint8Array; contentType: string };
  status?: number;
  /** ACLs trimmed the list. */
  filtered?: boolean;
  /** The index to answer, when the handler found its own (one KV key); otherwise the one read before the data. */
  index?: number;
}

export type CatalogHandler = (ctx: CatalogCtx) => Promise<CatalogReply>;

export interface CatalogRoute {
  prefix: CatalogPrefix;
  /** Relative to the prefix, as in definePath: ':x' one segment, '*x' the rest. */
  pattern: string;
  help: string;
  fields: Fields;
  methods: Partial<Record<Method, CatalogHandler>>;
  /** GET answers blocking queries (`?index=&wait=`). */
  blocking?: boolean;
  /** The fields `?filter` selects on (no filter without it: 400). */
  filter?: FieldType;
  /** Takes `?node-meta` (400 without it). */
  nodeMeta?: boolean;
  /**
   * The one KV key a GET reads, if known from the request alone: its item is read while the
   * token is checked and used only once access is granted, and its answer carries its own index.
   */
  entryKey?: (params: Record<string, string>, query: URLSearchParams) => string | undefined;
  /** POST is 405 rather than taken as PUT, as the reference answers on kv. */
  putOnly?: boolean;
  /** A write's body is the value itself (a KV value): every field but a path parameter is a query parameter. */
  rawBody?: boolean;
}

const OPS: Record<Method, OpName> = { GET: 'read', PUT: 'write', DELETE: 'delete' };

/** The route as a PathSpec, for routing and the OpenAPI document (sys serves the document). */
function specOf(route: CatalogRoute): PathSpec {
  const operations: PathSpec['operations'] = {};
  for (const m of Object.keys(route.methods) as Method[]) {
    operations[OPS[m]] = async () => {
      throw new Error('catalog routes are served by the catalog function');
    };
  }
  return { pattern: route.pattern, fields: route.fields, operations, help: route.help, ...(route.rawBody ? { rawBody: true } : {}) };
}

export interface CatalogRouter {
  /** Every route, in the order they answer. */
  routes: readonly CatalogRoute[];
  routeSets(): RouteSet[];
}

export function createRouter(routes: CatalogRoute[]): CatalogRouter {
  const byPrefix = new Map<string, PathSpec[]>();
  for (const r of routes) byPrefix.set(r.prefix, [...(byPrefix.get(r.prefix) ?? []), specOf(r)]);
  return {
    routes,
    routeSets() {
      return [...byPrefix].map(([prefix, paths]) => ({
        prefix,
        mount: { path: prefix, type: 'catalog', defaultLeaseTtl: 0, maxLeaseTtl: 0 },
        paths,
      }));
    },
  };
}
