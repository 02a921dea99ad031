/**
 * Issue 12 item 15: the read endpoints common clients call first (health/*, agent/self,
 * catalog/datacenters, status/*), checked against the reference's documented shapes, then
 * through python3-consul and the npm `consul` client over real HTTP (with item 13's
 * node-meta and filter through the npm client too).
 */
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createAdaptorServer, type ServerType } from '@hono/node-server';
import Consul from 'consul';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
let server: ServerType;
let port: number;
const j = (r: { text: string }) => JSON.parse(r.text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const ids = (list: { Service: { ID: string } }[]) => list.map((e) => e.Service.ID).sort();

beforeAll(async () => {
  svc = await catalogService();
  const reg = (body: object) => cat(svc, 'PUT', '/v1/catalog/register', { body });
  await reg({
    Node: 'n1',
    Address: '10.0.0.1',
    NodeMeta: { env: 'prod' },
    Service: { ID: 'web-1', Service: 'web', Tags: ['blue'], Port: 80 },
    Checks: [
      { CheckID: 'node-ok', Name: 'node alive', Status: 'passing' },
      { CheckID: 'web-1-http', Name: 'http', Status: 'passing', ServiceID: 'web-1' },
    ],
  });
  await reg({
    Node: 'n2',
    Address: '10.0.0.2',
    NodeMeta: { env: 'dev' },
    Service: { ID: 'web-2', Service: 'web', Port: 80 },
    Check: { CheckID: 'web-2-http', Name: 'http', Status: 'critical', ServiceID: 'web-2', Output: 'refused' },
  });
  await reg({ Node: 'n3', Address: '10.0.0.3', Service: { ID: 'web-3', Service: 'web', Tags: ['blue'], Port: 81 } });
  server = createAdaptorServer({ fetch: svc.catalog.fetch });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe('health endpoints', () => {
  it('health/service/<name>: Node, Service and the checks that apply, with ?passing, ?tag, ?node-meta, ?filter', async () => {
    const all = j(await cat(svc, 'GET', '/v1/health/service/web'));
    expect(ids(all)).toEqual(['web-1', 'web-2', 'web-3']);
    const first = all.find((e: { Service: { ID: string } }) => e.Service.ID === 'web-1');
    expect(first.Node).toMatchObject({ Node: 'n1', Address: '10.0.0.1', Datacenter: 'dc1', Meta: { env: 'prod' } });
    expect(first.Service).toMatchObject({ ID: 'web-1', Service: 'web', Tags: ['blue'], Port: 80, Weights: { Passing: 1, Warning: 1 } });
    expect(first.Checks.map((c: { CheckID: string }) => c.CheckID).sort()).toEqual(['node-ok', 'web-1-http']);
    expect(first.Checks.find((c: { CheckID: string }) => c.CheckID === 'web-1-http')).toMatchObject({
      Node: 'n1',
      Name: 'http',
      Status: 'passing',
      ServiceID: 'web-1',
      ServiceName: 'web',
      ServiceTags: ['blue'],
    });
    expect(ids(j(await cat(svc, 'GET', '/v1/health/service/web?passing')))).toEqual(['web-1', 'web-3']);
    expect(ids(j(await cat(svc, 'GET', '/v1/health/service/web?passing=false')))).toEqual(['web-1', 'web-2', 'web-3']);
    expect(ids(j(await cat(svc, 'GET', '/v1/health/service/web?tag=blue')))).toEqual(['web-1', 'web-3']);
    expect(ids(j(await cat(svc, 'GET', '/v1/health/service/web?node-meta=env:dev')))).toEqual(['web-2']);
    expect(
      ids(
        j(await cat(svc, 'GET', `/v1/health/service/web?filter=${encodeURIComponent('Checks.Status == critical or Service.Port == 81')}`)),
      ),
    ).toEqual(['web-2', 'web-3']);
    expect(j(await cat(svc, 'GET', '/v1/health/service/nothing'))).toEqual([]);
    expect(await cat(svc, 'GET', '/v1/health/service/web?passing=perhaps')).toMatchObject({
      status: 400,
      text: expect.stringContaining('Invalid value for ?passing'),
    });
  });

  it('health/node, health/checks, health/state', async () => {
    const checkIds = (r: { text: string }) =>
      j(r)
        .map((c: { CheckID: string }) => c.CheckID)
        .sort();
    expect(checkIds(await cat(svc, 'GET', '/v1/health/node/n1'))).toEqual(['node-ok', 'web-1-http']);
    expect(j(await cat(svc, 'GET', '/v1/health/node/nobody'))).toEqual([]);
    expect(checkIds(await cat(svc, 'GET', '/v1/health/checks/web'))).toEqual(['web-1-http', 'web-2-http']);
    expect(checkIds(await cat(svc, 'GET', '/v1/health/checks/web?node-meta=env:prod'))).toEqual(['web-1-http']);
    expect(checkIds(await cat(svc, 'GET', '/v1/health/state/critical'))).toEqual(['web-2-http']);
    expect(checkIds(await cat(svc, 'GET', '/v1/health/state/any'))).toEqual(['node-ok', 'web-1-http', 'web-2-http']);
    expect(
      checkIds(
        await cat(svc, 'GET', `/v1/health/state/any?filter=${encodeURIComponent('ServiceName == web and Output contains refused')}`),
      ),
    ).toEqual(['web-2-http']);
    expect(await cat(svc, 'GET', '/v1/health/state/sideways')).toMatchObject({ status: 400, text: expect.stringContaining('Bad state') });
    const r = await cat(svc, 'GET', '/v1/health/state/any');
    expect(r.headers.get('x-consul-index')).toMatch(/^[1-9]\d*$/);
  });

  it('agent/self, catalog/datacenters, status/leader, status/peers', async () => {
    expect(j(await cat(svc, 'GET', '/v1/agent/self'))).toMatchObject({
      Config: { Datacenter: 'dc1', NodeName: 'latchkey', Server: true },
      Member: { Name: 'latchkey' },
    });
    expect(j(await cat(svc, 'GET', '/v1/catalog/datacenters'))).toEqual(['dc1']);
    expect(j(await cat(svc, 'GET', '/v1/status/leader'))).toBe('127.0.0.1:8300');
    expect(j(await cat(svc, 'GET', '/v1/status/peers'))).toEqual(['127.0.0.1:8300']);
  });
});

const PY = `
import json, sys
import consul
c = consul.Consul(host='127.0.0.1', port=int(sys.argv[1]))
out = {}
index, nodes = c.health.service('web', passing=True)
out['service'] = sorted(e['Service']['ID'] for e in nodes)
out['service_tag'] = sorted(e['Service']['ID'] for e in c.health.service('web', tag='blue')[1])
out['node'] = sorted(ch['CheckID'] for ch in c.health.node('n1')[1])
out['checks'] = sorted(ch['CheckID'] for ch in c.health.checks('web')[1])
out['state'] = [ch['CheckID'] for ch in c.health.state('critical')[1]]
out['self'] = c.agent.self()['Config']['Datacenter']
out['datacenters'] = c.catalog.datacenters()
out['leader'] = c.status.leader()
out['peers'] = c.status.peers()
print(json.dumps(out))
`;

describe('through the clients', () => {
  it('python3-consul: health.service/node/checks/state, agent.self, catalog.datacenters, status.leader/peers', async () => {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', ['-c', PY, String(port)], { timeout: 60_000 });
    expect(JSON.parse(stdout)).toEqual({
      service: ['web-1', 'web-3'],
      service_tag: ['web-1', 'web-3'],
      node: ['node-ok', 'web-1-http'],
      checks: ['web-1-http', 'web-2-http'],
      state: ['web-2-http'],
      self: 'dc1',
      datacenters: ['dc1'],
      leader: '127.0.0.1:8300',
      peers: ['127.0.0.1:8300'],
    });
  });

  it('the npm consul client: the same reads, and node-meta and filter on the catalog', async () => {
    const c = new Consul({ host: '127.0.0.1', port });
    expect(ids(await c.health.service({ service: 'web', passing: true }))).toEqual(['web-1', 'web-3']);
    expect((await c.health.node('n1')).map((x: { CheckID: string }) => x.CheckID).sort()).toEqual(['node-ok', 'web-1-http']);
    expect((await c.health.checks('web')).map((x: { CheckID: string }) => x.CheckID).sort()).toEqual(['web-1-http', 'web-2-http']);
    expect((await c.health.state('critical')).map((x: { CheckID: string }) => x.CheckID)).toEqual(['web-2-http']);
    expect((await c.agent.self()).Config.Datacenter).toBe('dc1');
    expect(await c.catalog.datacenters()).toEqual(['dc1']);
    expect(await c.status.leader()).toBe('127.0.0.1:8300');
    expect(await c.status.peers()).toEqual(['127.0.0.1:8300']);
    const prod = await c.catalog.node.list({ 'node-meta': 'env:prod' } as never);
    expect(prod.map((n: { Node: string }) => n.Node)).toEqual(['n1']);
    const filtered = await c.catalog.service.nodes({ service: 'web', filter: 'ServicePort == 81' } as never);
    expect(filtered.map((n: { ServiceID: string }) => n.ServiceID)).toEqual(['web-3']);
    const members = await c.agent.members({ filter: 'Name == n2' } as never);
    expect(members.map((m: { Name: string }) => m.Name)).toEqual(['n2']);
    await expect(c.catalog.node.list({ filter: 'Nope == 1' } as never)).rejects.toThrow(/Selector "Nope" is not valid/);
  });
});
