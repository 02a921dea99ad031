/**
 * `health/service/<name>`, `health/node/<node>`, `health/checks/<service>`, `health/state/<state>`.
 * Latchkey runs no checks: a check's status is the one it was registered with, and an instance
 * without checks is passing, as a node registered from outside is in the reference catalog.
 */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';
import { CHECK_SERVICE_NODE, HEALTH_CHECK } from '../filter/schema';
import { checkName } from '../names';
import type { CheckRecord, ServiceRecord } from '../records';
import { checkServiceNodeShape, healthCheckShape } from '../shapes';
import { nodesOf, readable, selectFields, serviceVisible } from './catalog';

const STATES = ['any', 'passing', 'warning', 'critical', 'maintenance'];
const BOOL: Record<string, boolean> = {
  '': true,
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

function passingOnly(q: URLSearchParams): boolean {
  const v = q.get('passing');
  if (v === null) return false;
  const b = BOOL[v];
  if (b === undefined) throw new BadRequest(`Invalid value for ?passing: ${JSON.stringify(v.slice(0, 32))}`);
  return b;
}

/** Checks the caller may read: a service's need the service and the node, a node's the node. */
const checkVisible = (ctx: CatalogCtx) => (c: CheckRecord) =>
  ctx.access.can('node', c.node, 'read') && (!c.serviceName || ctx.access.can('service', c.serviceName, 'read'));

/** Service tags by `<node>/<service id>`, for the checks' ServiceTags. */
async function tagsOf(ctx: CatalogCtx, checks: CheckRecord[]): Promise<(c: CheckRecord) => string[]> {
  const tags = new Map<string, string[]>();
  const names = [...new Set(checks.filter((c) => c.serviceName).map((c) => c.serviceName))];
  for (const name of names) for (const s of await ctx.catalog.instancesOf(name)) tags.set(`${s.node}/${s.id}`, s.tags);
  return (c) => tags.get(`${c.node}/${c.serviceId}`) ?? [];
}

/** Checks, after ACLs, `?node-meta` and `?filter`, in the reference's shape. */
async function checksReply(ctx: CatalogCtx, all: CheckRecord[], nodeMeta: boolean): Promise<CatalogReply> {
  const { kept, filtered } = readable(all, checkVisible(ctx));
  let selected = kept;
  if (nodeMeta) {
    const nodes = new Map(
      await Promise.all([...new Set(kept.map((c) => c.node))].map(async (n) => [n, await ctx.catalog.node(n)] as const)),
    );
    selected = kept.filter((c) => ctx.nodeMeta(nodes.get(c.node)?.meta ?? null));
  }
  const tags = await tagsOf(ctx, selected);
  return { json: ctx.filter(selected.map((c) => healthCheckShape(c, tags(c)))), filtered };
}

async function serviceHealth(ctx: CatalogCtx): Promise<CatalogReply> {
  const name = checkName(ctx.params.name ?? '', 'service name');
  const wantTags = ctx.query.getAll('tag');
  const passing = passingOnly(ctx.query);
  const all = (await ctx.catalog.instancesOf(name)).filter((s) => wantTags.every((t) => s.tags.includes(t)));
  const { kept, filtered } = readable(all, serviceVisible(ctx.access));
  const nodes = await nodesOf(ctx, kept);
  const checks = new Map<string, CheckRecord[]>();
  for (const n of nodes.keys()) checks.set(n, await ctx.catalog.checksOf(n));
  const applying = (s: ServiceRecord) => (checks.get(s.node) ?? []).filter((c) => c.serviceId === '' || c.serviceId === s.id);
  const selected = kept
    .filter((s) => ctx.nodeMeta(nodes.get(s.node)?.meta ?? null))
    .filter((s) => !passing || applying(s).every((c) => c.status === 'passing'));
  const translate = ctx.settings.translateWanAddrs;
  return { json: ctx.filter(selected.map((s) => checkServiceNodeShape(s, nodes.get(s.node), applying(s), translate))), filtered };
}

async function nodeHealth(ctx: CatalogCtx): Promise<CatalogReply> {
  const node = checkName(ctx.params.name ?? '', 'node name');
  return checksReply(ctx, await ctx.catalog.checksOf(node), false);
}

async function serviceChecks(ctx: CatalogCtx): Promise<CatalogReply> {
  const name = checkName(ctx.params.name ?? '', 'service name');
  return checksReply(
    ctx,
    (await ctx.catalog.allChecks()).filter((c) => c.serviceName === name),
    true,
  );
}

async function stateChecks(ctx: CatalogCtx): Promise<CatalogReply> {
  const state = ctx.params.state ?? '';
  if (!STATES.includes(state))
    throw new BadRequest(`Bad state: ${JSON.stringify(state.slice(0, 32))} (any, passing, warning, critical, maintenance)`);
  const all = await ctx.catalog.allChecks();
  return checksReply(ctx, state === 'any' ? all : all.filter((c) => c.status === state), true);
}

const blockingFields = {
  index: f.int({ description: 'blocking query: wait for an index past this one', min: 0 }),
  wait: f.string({ description: 'blocking query: how long to wait (at most 20s)' }),
};
const route = (pattern: string, help: string, handler: CatalogRoute['methods']['GET'], extra: Partial<CatalogRoute>): CatalogRoute => ({
  prefix: 'health',
  pattern,
  help,
  fields: { ...selectFields, ...blockingFields },
  methods: { GET: handler },
  blocking: true,
  filter: HEALTH_CHECK,
  nodeMeta: true,
  ...extra,
});

export const healthRoutes: CatalogRoute[] = [
  route('service/:name', "A service's instances with their node and checks (?passing, ?tag=, ?node-meta=, ?filter=).", serviceHealth, {
    filter: CHECK_SERVICE_NODE,
    fields: {
      name: f.pathParam(),
      passing: f.string({ description: 'only instances whose checks all pass' }),
      tag: f.string({ description: 'only instances with this tag (repeatable)' }),
      ...selectFields,
      ...blockingFields,
    },
  }),
  route('node/:name', 'The checks of a node (?filter=).', nodeHealth, {
    nodeMeta: false,
    fields: { name: f.pathParam(), filter: selectFields.filter, ...blockingFields },
  }),
  route('checks/:name', 'The checks of a service (?node-meta=, ?filter=).', serviceChecks, {
    fields: { name: f.pathParam(), ...selectFields, ...blockingFields },
  }),
  route('state/:state', 'Checks in a state: any, passing, warning, critical (?node-meta=, ?filter=).', stateChecks, {
    fields: { state: f.pathParam(), ...selectFields, ...blockingFields },
  }),
];
