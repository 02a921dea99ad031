/**
 * Catalog routes as data: a pattern under one of the catalog's prefixes, the fields it reads
 * (for the OpenAPI document), and a handler per method. Matching reuses lib/http/path.ts.
 */
import type { Fields } from '../../http/fields';
import { compile, match, type CompiledPath, type OpName, type PathSpec } from '../../http/path';
import type { RouteSet } from '../../http/engine-app';
import type { CatalogAccess } from '../acl';
import type { Catalog } from '../catalog';
import type { ItemFilter } from '../filter/evaluate';
import type { NodeMetaTest } from '../filter/node-meta';
import type { FieldType } from '../filter/schema';
import type { KvStore } from '../kv';
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
}

export interface CatalogReply {
  /** A JSON value; `undefined` with status 404 is the reference's empty "not found". */
  json?: unknown;
  raw?: { bytes: Uint8Array; contentType: string };
  status?: number;
  /** ACLs trimmed the list. */
  filtered?: boolean;
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
  /** POST is 405 rather than taken as PUT, as the reference answers on kv. */
  putOnly?: boolean;
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
  return { pattern: route.pattern, fields: route.fields, operations, help: route.help };
}

export interface CatalogRouter {
  find(full: string): { route: CatalogRoute; params: Record<string, string>; name: string } | undefined;
  routeSets(): RouteSet[];
}

export function createRouter(routes: CatalogRoute[]): CatalogRouter {
  const byPrefix = new Map<string, { compiled: CompiledPath[]; routes: Map<PathSpec, CatalogRoute> }>();
  for (const r of routes) {
    const entry = byPrefix.get(r.prefix) ?? { compiled: [] as CompiledPath[], routes: new Map<PathSpec, CatalogRoute>() };
    const spec = specOf(r);
    entry.compiled.push(compile(spec));
    entry.routes.set(spec, r);
    byPrefix.set(r.prefix, entry);
  }
  return {
    find(full) {
      const slash = full.indexOf('/');
      const prefix = slash === -1 ? full : full.slice(0, slash);
      const entry = byPrefix.get(prefix);
      if (!entry) return undefined;
      const hit = match(entry.compiled, slash === -1 ? '' : full.slice(slash + 1));
      const route = hit && entry.routes.get(hit.spec);
      return route && hit ? { route, params: hit.params, name: `${prefix}/${route.pattern}` } : undefined;
    },
    routeSets() {
      return [...byPrefix].map(([prefix, e]) => ({
        prefix,
        mount: { path: prefix, type: 'catalog', defaultLeaseTtl: 0, maxLeaseTtl: 0 },
        paths: e.compiled.map((c) => c.spec),
      }));
    },
  };
}
