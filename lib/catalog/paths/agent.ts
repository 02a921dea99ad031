/** `agent/members`: the registered nodes, in the shape the reference agent lists its LAN members. */
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';
import { f } from '../../http/fields';
import { MEMBER } from '../filter/schema';
import { memberShape } from '../shapes';
import { selectFields } from './catalog';

async function members(ctx: CatalogCtx): Promise<CatalogReply> {
  const all = await ctx.catalog.nodes();
  const kept = all.filter((n) => ctx.access.can('node', n.node, 'read'));
  // As the reference reads it: any non-empty `wan` asks for the WAN pool.
  const wan = (ctx.query.get('wan') ?? '') !== '';
  return { json: ctx.filter(kept.map((n) => memberShape(n, ctx.settings.translateWanAddrs, wan))), filtered: kept.length !== all.length };
}

export const agentRoutes: CatalogRoute[] = [
  {
    prefix: 'agent',
    pattern: 'members',
    help: 'Registered nodes as agent members.',
    fields: { filter: selectFields.filter, wan: f.string({ description: 'non-empty: the WAN members' }) },
    methods: { GET: members },
    filter: MEMBER,
  },
];
