/** `catalog/register`, `catalog/deregister`, `catalog/services`, `catalog/service/<name>`, `catalog/nodes`, `catalog/node/<name>`. */
import { BODY_LIMIT } from '../../config';
import { f } from '../../http/fields';
import { demand, type CatalogAccess } from '../acl';
import { parseJsonObject } from '../decode';
import { checkName } from '../names';
import type { NodeRecord, Registration, ServiceRecord } from '../records';
import { readDeregistration, readRegistration } from '../register-body';
import { NODE, NODE_SERVICE, SERVICE_NODE } from '../filter/schema';
import { nodeServiceShape, nodeShape, serviceNodeShape } from '../shapes';
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';

const bodyOf = async (ctx: CatalogCtx) => parseJsonObject(Buffer.from(await ctx.body(BODY_LIMIT)).toString('utf8'));

async function register(ctx: CatalogCtx): Promise<CatalogReply> {
  const r = readRegistration(await bodyOf(ctx), ctx.settings.datacenter);
  await authorizeRegistration(ctx, r);
  await ctx.catalog.register(r);
  return { json: true };
}

async function authorizeRegistration(ctx: CatalogCtx, r: Registration): Promise<void> {
  const { access, catalog } = ctx;
  if (!r.skipNodeUpdate || !(await catalog.node(r.node))) demand(access, 'node', r.node, 'write');
  if (r.service) demand(access, 'service', r.service.service, 'write');
  for (const c of r.checks) {
    const svc = !c.serviceId ? undefined : c.serviceId === r.service?.id ? r.service : await catalog.service(r.node, c.serviceId);
    if (svc) demand(access, 'service', svc.service, 'write');
    else demand(access, 'node', r.node, 'write');
  }
}

async function deregister(ctx: CatalogCtx): Promise<CatalogReply> {
  const { access, catalog } = ctx;
  const d = readDeregistration(await bodyOf(ctx), ctx.settings.datacenter);
  if (d.serviceId) {
    const svc = await catalog.service(d.node, d.serviceId);
    if (svc) demand(access, 'service', svc.service, 'delete');
    else demand(access, 'node', d.node, 'delete');
  }
  if (d.checkId) {
    const check = await catalog.check(d.node, d.checkId);
    if (check?.serviceName) demand(access, 'service', check.serviceName, 'delete');
    else demand(access, 'node', d.node, 'delete');
  }
  if (!d.serviceId && !d.checkId) demand(access, 'node', d.node, 'delete');
  await catalog.deregister(d);
  return { json: true };
}

/** Keeps what the caller may read; `filtered` says whether anything was dropped. */
export function readable<T>(items: T[], ok: (x: T) => boolean): { kept: T[]; filtered: boolean } {
  const kept = items.filter(ok);
  return { kept, filtered: kept.length !== items.length };
}

export const serviceVisible = (access: CatalogAccess) => (s: ServiceRecord) =>
  access.can('service', s.service, 'read') && access.can('node', s.node, 'read');

/** The nodes of these instances, by name. */
export async function nodesOf(ctx: CatalogCtx, instances: ServiceRecord[]): Promise<Map<string, NodeRecord | undefined>> {
  const nodes = new Map<string, NodeRecord | undefined>();
  await Promise.all([...new Set(instances.map((s) => s.node))].map(async (n) => nodes.set(n, await ctx.catalog.node(n))));
  return nodes;
}

/** Instances the caller may read, then those `?node-meta` and `?filter` keep, with their nodes. */
async function selectInstances(ctx: CatalogCtx, all: ServiceRecord[]) {
  const { kept, filtered } = readable(all, serviceVisible(ctx.access));
  const nodes = await nodesOf(ctx, kept);
  const translate = ctx.settings.translateWanAddrs;
  const metaOk = kept.filter((s) => ctx.nodeMeta(nodes.get(s.node)?.meta ?? null));
  const selected = ctx.filter(metaOk, (s) => serviceNodeShape(s, nodes.get(s.node), translate));
  return { selected, nodes, filtered };
}

async function services(ctx: CatalogCtx): Promise<CatalogReply> {
  const { selected: kept, filtered } = await selectInstances(ctx, await ctx.catalog.instances());
  // A Map: service names are the client's (`constructor`, `__proto__` are names like any other).
  const tags = new Map<string, Set<string>>();
  for (const s of kept) tags.set(s.service, new Set([...(tags.get(s.service) ?? []), ...s.tags]));
  return { json: Object.fromEntries([...tags].map(([name, t]) => [name, [...t]])), filtered };
}

async function serviceNodes(ctx: CatalogCtx): Promise<CatalogReply> {
  const name = checkName(ctx.params.name ?? '', 'service name');
  const tags = ctx.query.getAll('tag');
  const all = (await ctx.catalog.instancesOf(name)).filter((s) => tags.every((t) => s.tags.includes(t)));
  const { selected: kept, nodes, filtered } = await selectInstances(ctx, all);
  const translate = ctx.settings.translateWanAddrs;
  return { json: kept.map((s) => serviceNodeShape(s, nodes.get(s.node), translate)), filtered };
}

async function nodes(ctx: CatalogCtx): Promise<CatalogReply> {
  const { kept, filtered } = readable(await ctx.catalog.nodes(), (n) => ctx.access.can('node', n.node, 'read'));
  const shapes = kept.filter((n) => ctx.nodeMeta(n.meta)).map((n) => nodeShape(n, ctx.settings.translateWanAddrs));
  return { json: ctx.filter(shapes), filtered };
}

async function node(ctx: CatalogCtx): Promise<CatalogReply> {
  const name = checkName(ctx.params.name ?? '', 'node name');
  const found = await ctx.catalog.node(name);
  if (!found) return { json: null };
  if (!ctx.access.can('node', name, 'read')) return { json: null, filtered: true };
  const { kept, filtered } = readable(await ctx.catalog.servicesOf(name), (s) => ctx.access.can('service', s.service, 'read'));
  const translate = ctx.settings.translateWanAddrs;
  const shapes = ctx.filter(kept.map((s) => nodeServiceShape(s, translate)));
  return { json: { Node: nodeShape(found, translate), Services: Object.fromEntries(shapes.map((s) => [s.ID, s])) }, filtered };
}

const blockingFields = {
  index: f.int({ description: 'blocking query: wait for an index past this one', min: 0 }),
  wait: f.string({ description: 'blocking query: how long to wait (at most 20s)' }),
};

/** `?node-meta` and `?filter`, for the OpenAPI document. */
export const selectFields = {
  'node-meta': f.string({ description: 'key:value; only nodes with this metadata (repeatable)' }),
  filter: f.string({ description: "a filter expression in Consul's grammar" }),
};

const registerFields = {
  Node: f.string({ required: true, description: 'node name' }),
  Address: f.string({ description: 'node address (required unless SkipNodeUpdate)' }),
  ID: f.string({ description: 'node ID (a UUID)' }),
  Datacenter: f.string({ description: "must be this catalog's datacenter" }),
  TaggedAddresses: f.map({ description: 'e.g. {"lan": "10.0.0.1", "wan": "198.51.100.1"}' }),
  NodeMeta: f.map({ description: 'node metadata' }),
  Service: f.any({ description: '{ID, Service, Tags, Address, TaggedAddresses, Meta, Port, EnableTagOverride}' }),
  Check: f.any({ description: '{Node, CheckID, Name, Notes, Status, ServiceID, Output}' }),
  Checks: f.any({ description: 'a list of checks' }),
  SkipNodeUpdate: f.bool({ description: 'keep the stored node as it is' }),
};

const deregisterFields = {
  Node: f.string({ required: true, description: 'node name' }),
  Datacenter: f.string({ description: "must be this catalog's datacenter" }),
  ServiceID: f.string({ description: 'remove only this service' }),
  CheckID: f.string({ description: 'remove only this check' }),
};

export const catalogRoutes: CatalogRoute[] = [
  {
    prefix: 'catalog',
    pattern: 'register',
    help: 'Registers or updates a node, a service, checks.',
    fields: registerFields,
    methods: { PUT: register },
  },
  {
    prefix: 'catalog',
    pattern: 'deregister',
    help: 'Removes a node (with its services and checks), a service or a check.',
    fields: deregisterFields,
    methods: { PUT: deregister },
  },
  {
    prefix: 'catalog',
    pattern: 'services',
    help: 'Service names with their tags (?node-meta=, ?filter= on the instances).',
    fields: { ...selectFields, ...blockingFields },
    methods: { GET: services },
    blocking: true,
    filter: SERVICE_NODE,
    nodeMeta: true,
  },
  {
    prefix: 'catalog',
    pattern: 'service/:name',
    help: 'The instances of a service (?tag=, ?node-meta=, ?filter=).',
    fields: { name: f.pathParam(), tag: f.string({ description: 'only instances with this tag' }), ...selectFields, ...blockingFields },
    methods: { GET: serviceNodes },
    blocking: true,
    filter: SERVICE_NODE,
    nodeMeta: true,
  },
  {
    prefix: 'catalog',
    pattern: 'nodes',
    help: 'Registered nodes (?node-meta=, ?filter=).',
    fields: { ...selectFields, ...blockingFields },
    methods: { GET: nodes },
    blocking: true,
    filter: NODE,
    nodeMeta: true,
  },
  {
    prefix: 'catalog',
    pattern: 'node/:name',
    help: 'A node and its services (?filter= on the services).',
    fields: { name: f.pathParam(), filter: selectFields.filter, ...blockingFields },
    methods: { GET: node },
    blocking: true,
    filter: NODE_SERVICE,
  },
];
