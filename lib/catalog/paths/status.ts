/**
 * What clients ask an agent first: `agent/self`, `catalog/datacenters`, `status/leader`,
 * `status/peers`. Latchkey is one serverless service, not a cluster of agents: it answers as
 * a single server agent, named `latchkey`, that leads its one datacenter.
 */
import type { CatalogCtx, CatalogReply, CatalogRoute } from '../http/route';
import { demand } from '../acl';

/** The agent's name (its ACL path is `catalog/node/latchkey`). */
export const AGENT_NODE = 'latchkey';
/** The leader and only peer, in the reference's `address:port` form. */
const LEADER = '127.0.0.1:8300';
/** The reference API generation whose shapes Latchkey answers. */
const API_VERSION = '1.15.0';

async function self(ctx: CatalogCtx): Promise<CatalogReply> {
  demand(ctx.access, 'node', AGENT_NODE, 'read');
  const dc = ctx.settings.datacenter;
  const tags = { dc, role: 'consul', id: '', segment: '', build: API_VERSION };
  return {
    json: {
      Config: { Datacenter: dc, PrimaryDatacenter: dc, NodeName: AGENT_NODE, NodeID: '', Revision: '', Server: true, Version: API_VERSION },
      DebugConfig: { Datacenter: dc, PrimaryDatacenter: dc, NodeName: AGENT_NODE, ServerMode: true, ACLsEnabled: ctx.settings.aclEnabled },
      Coord: null,
      Member: {
        Name: AGENT_NODE,
        Addr: '127.0.0.1',
        Port: 8301,
        Tags: tags,
        Status: 1,
        ProtocolMin: 1,
        ProtocolMax: 5,
        ProtocolCur: 2,
        DelegateMin: 2,
        DelegateMax: 5,
        DelegateCur: 4,
      },
      Stats: {},
      Meta: {},
    },
  };
}

const constant = (value: unknown) => async (): Promise<CatalogReply> => ({ json: value });

export const statusRoutes: CatalogRoute[] = [
  { prefix: 'agent', pattern: 'self', help: 'This agent: its configuration and member entry.', fields: {}, methods: { GET: self } },
  { prefix: 'status', pattern: 'leader', help: "The leader's address (this service).", fields: {}, methods: { GET: constant(LEADER) } },
  {
    prefix: 'status',
    pattern: 'peers',
    help: "The servers' addresses (this service alone).",
    fields: {},
    methods: { GET: constant([LEADER]) },
  },
];

/** `catalog/datacenters`: the one datacenter. */
export const datacentersRoute: CatalogRoute = {
  prefix: 'catalog',
  pattern: 'datacenters',
  help: 'Known datacenters: this one.',
  fields: {},
  methods: { GET: async (ctx: CatalogCtx) => ({ json: [ctx.settings.datacenter] }) },
};
