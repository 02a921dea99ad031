/** `agent/members`: the registered nodes, in the shape the reference agent lists its LAN members. */
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';
import { memberShape } from '../shapes';

async function members(ctx: CatalogCtx): Promise<CatalogReply> {
  const all = await ctx.catalog.nodes();
  const kept = all.filter((n) => ctx.access.can('node', n.node, 'read'));
  return { json: kept.map((n) => memberShape(n, ctx.settings.translateWanAddrs)), filtered: kept.length !== all.length };
}

export const agentRoutes: CatalogRoute[] = [
  { prefix: 'agent', pattern: 'members', help: 'Registered nodes as agent members.', fields: {}, methods: { GET: members } },
];
