import { beforeAll, describe, expect, it } from 'vitest';
import { localApp } from '../../../lib/local/app';
import { call } from '../../helpers/service';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

const register = (body: unknown) => cat(svc, 'PUT', '/v1/catalog/register', { body });
const deregister = (body: unknown) => cat(svc, 'PUT', '/v1/catalog/deregister', { body });

describe('catalog register and reads', () => {
  it('registers a node with a service and a check, and lists them in the reference shapes', async () => {
    const r = await register({
      Node: 'web-1',
      Address: '10.0.0.11',
      TaggedAddresses: { lan: '10.0.0.11', wan: '198.51.100.11' },
      NodeMeta: { rack: 'r1' },
      Service: { ID: 'web-a', Service: 'web', Tags: ['v1', 'primary'], Address: '10.0.0.11', Port: 8080, Meta: { team: 'edge' } },
      Check: { CheckID: 'web-a-http', Name: 'http', Status: 'passing', ServiceID: 'web-a' },
    });
    expect(r).toMatchObject({ status: 200, text: 'true' });
    await register({ Node: 'web-2', Address: '10.0.0.12', Service: { Service: 'web', Tags: ['v2'], Port: 8080 } });
    await register({ Node: 'db-1', Address: '10.0.0.21', Service: { Service: 'db', Port: 5432 } });

    expect((await cat(svc, 'GET', '/v1/catalog/services')).json).toEqual({ web: ['v1', 'primary', 'v2'], db: [] });

    const nodes = (await cat(svc, 'GET', '/v1/catalog/nodes')).json as unknown as Record<string, unknown>[];
    expect(nodes.map((n) => n.Node)).toEqual(['db-1', 'web-1', 'web-2']);
    expect(nodes[1]).toMatchObject({
      Node: 'web-1',
      Address: '10.0.0.11',
      Datacenter: 'dc1',
      Meta: { rack: 'r1' },
      TaggedAddresses: { wan: '198.51.100.11' },
    });

    const web = (await cat(svc, 'GET', '/v1/catalog/service/web')).json as unknown as Record<string, unknown>[];
    expect(web).toHaveLength(2);
    expect(web[0]).toMatchObject({
      Node: 'web-1',
      Address: '10.0.0.11',
      ServiceID: 'web-a',
      ServiceName: 'web',
      ServiceTags: ['v1', 'primary'],
      ServicePort: 8080,
      ServiceMeta: { team: 'edge' },
      NodeMeta: { rack: 'r1' },
    });
    expect(web[1]).toMatchObject({ Node: 'web-2', ServiceID: 'web', ServiceTags: ['v2'] });
    const tagged = (await cat(svc, 'GET', '/v1/catalog/service/web?tag=v2')).json as unknown as Record<string, unknown>[];
    expect(tagged.map((s) => s.Node)).toEqual(['web-2']);

    const node = (await cat(svc, 'GET', '/v1/catalog/node/web-1')).json as unknown as {
      Node: Record<string, unknown>;
      Services: Record<string, Record<string, unknown>>;
    };
    expect(node.Node).toMatchObject({ Node: 'web-1', Address: '10.0.0.11' });
    expect(node.Services['web-a']).toMatchObject({ ID: 'web-a', Service: 'web', Tags: ['v1', 'primary'], Port: 8080 });
  });

  it('agent/members lists registered nodes as agent members', async () => {
    const members = (await cat(svc, 'GET', '/v1/agent/members')).json as unknown as Record<string, unknown>[];
    expect(members.find((m) => m.Name === 'web-1')).toMatchObject({
      Name: 'web-1',
      Addr: '10.0.0.11',
      Port: 8301,
      Status: 1,
      Tags: { dc: 'dc1', role: 'node' },
    });
  });

  it('answers the reference empties for unknown services and nodes', async () => {
    const s = await cat(svc, 'GET', '/v1/catalog/service/nope');
    expect(s).toMatchObject({ status: 200, text: '[]' });
    const n = await cat(svc, 'GET', '/v1/catalog/node/nope');
    expect(n).toMatchObject({ status: 200, text: 'null' });
  });

  it('re-registering the same node changes nothing; a change moves ModifyIndex only', async () => {
    const before = (await cat(svc, 'GET', '/v1/catalog/node/db-1')).json as unknown as {
      Node: { CreateIndex: number; ModifyIndex: number };
    };
    await register({ Node: 'db-1', Address: '10.0.0.21', Service: { Service: 'db', Port: 5432 } });
    const same = (await cat(svc, 'GET', '/v1/catalog/node/db-1')).json as unknown as typeof before;
    expect(same.Node.ModifyIndex).toBe(before.Node.ModifyIndex);
    await register({ Node: 'db-1', Address: '10.0.0.22' });
    const moved = (await cat(svc, 'GET', '/v1/catalog/node/db-1')).json as unknown as typeof before & { Node: { Address: string } };
    expect(moved.Node.Address).toBe('10.0.0.22');
    expect(moved.Node.CreateIndex).toBe(before.Node.CreateIndex);
    expect(moved.Node.ModifyIndex).toBeGreaterThan(before.Node.ModifyIndex);
  });

  it('renaming a service moves it between service listings', async () => {
    await register({ Node: 'mv-1', Address: '10.0.0.31', Service: { ID: 'x1', Service: 'old-name' } });
    await register({ Node: 'mv-1', Address: '10.0.0.31', Service: { ID: 'x1', Service: 'new-name' } });
    expect((await cat(svc, 'GET', '/v1/catalog/service/old-name')).json).toEqual([]);
    expect(((await cat(svc, 'GET', '/v1/catalog/service/new-name')).json as unknown as unknown[]).length).toBe(1);
  });

  it('SkipNodeUpdate keeps the stored node', async () => {
    await register({ Node: 'skip-1', Address: '10.0.0.41' });
    await register({ Node: 'skip-1', SkipNodeUpdate: true, Service: { Service: 'skipper' } });
    const n = (await cat(svc, 'GET', '/v1/catalog/node/skip-1')).json as unknown as {
      Node: { Address: string };
      Services: Record<string, unknown>;
    };
    expect(n.Node.Address).toBe('10.0.0.41');
    expect(Object.keys(n.Services)).toEqual(['skipper']);
  });

  it('accepts field names in any case, as the reference decoder does', async () => {
    const r = await register({ node: 'lower-1', address: '10.0.0.51', service: { service: 'lower', port: 1 } });
    expect(r.text).toBe('true');
    expect(((await cat(svc, 'GET', '/v1/catalog/service/lower')).json as unknown as Record<string, unknown>[])[0]).toMatchObject({
      Node: 'lower-1',
      ServicePort: 1,
    });
  });

  it('deregisters a service, a check, and a whole node', async () => {
    await register({
      Node: 'gone-1',
      Address: '10.0.0.61',
      Service: { ID: 's1', Service: 'gone' },
      Check: { CheckID: 'c1', ServiceID: 's1' },
    });
    await register({
      Node: 'gone-1',
      Address: '10.0.0.61',
      Service: { ID: 's2', Service: 'gone2' },
      Check: { CheckID: 'c2', Name: 'node check' },
    });
    expect((await deregister({ Node: 'gone-1', ServiceID: 's1' })).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/catalog/service/gone')).json).toEqual([]);
    expect((await cat(svc, 'GET', '/v1/catalog/node/gone-1')).json).toMatchObject({ Services: { s2: { Service: 'gone2' } } });
    expect((await deregister({ Node: 'gone-1', CheckID: 'c2' })).text).toBe('true');
    expect((await deregister({ Node: 'gone-1' })).text).toBe('true');
    expect((await cat(svc, 'GET', '/v1/catalog/node/gone-1')).text).toBe('null');
    expect((await cat(svc, 'GET', '/v1/catalog/service/gone2')).json).toEqual([]);
    expect((await deregister({ Node: 'never-was' })).text).toBe('true');
  });
});

describe('catalog conventions', () => {
  it('puts the default ACL policy and the index on every response, errors included', async () => {
    for (const [method, path] of [
      ['GET', '/v1/catalog/services'],
      ['GET', '/v1/kv/missing'],
      ['GET', '/v1/catalog/nope'],
      ['PUT', '/v1/catalog/register'],
    ] as const) {
      const r = await cat(svc, method, path);
      expect(r.headers.get('x-catalog-default-acl-policy'), path).toBe('allow');
      expect(Number(r.headers.get('x-catalog-index')), path).toBeGreaterThan(0);
      expect(r.headers.get('x-consul-index'), path).toBe(r.headers.get('x-catalog-index'));
      expect(r.headers.get('x-catalog-translate-addresses'), path).toBeNull();
    }
  });

  it('answers errors as plain text with the status', async () => {
    const r = await cat(svc, 'PUT', '/v1/catalog/register', { raw: '{"Node": 5}' });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toBe('Request decode failed: Node: expected a string');
  });

  it('refuses a non-printable character in the decoded path before anything else', async () => {
    for (const p of ['/v1/kv/a%0ab', '/v1/catalog/service/x%00', '/v1/kv/tab%09']) {
      const r = await cat(svc, 'PUT', p, { raw: 'x' });
      expect(r.status, p).toBe(400);
      expect(r.text, p).toMatch(/non-printable/);
    }
    expect((await cat(svc, 'GET', '/v1/kv/?keys')).json).not.toContain('a\nb');
  });

  it('the same path does different things per method; others are 405', async () => {
    expect((await cat(svc, 'GET', '/v1/catalog/register')).status).toBe(405);
    expect((await cat(svc, 'DELETE', '/v1/catalog/services')).status).toBe(405);
    const r = await cat(svc, 'PATCH', '/v1/kv/a');
    expect(r).toMatchObject({ status: 405, text: 'method PATCH not allowed' });
  });

  it('the local server serves the catalog, and sys lists its operations in the OpenAPI document', async () => {
    const local = localApp(svc.deps, []);
    expect((await call(local, 'PUT', '/v1/kv/local/k', { raw: 'v', headers: { 'x-consul-token': svc.root } })).text).toBe('true');
    const doc = await call(local, 'GET', '/v1/sys/openapi', { token: svc.root });
    const paths = doc.json!.paths as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/kv/{key}',
        '/kv/',
        '/catalog/register',
        '/catalog/deregister',
        '/catalog/services',
        '/catalog/service/{name}',
        '/catalog/nodes',
        '/catalog/node/{name}',
        '/agent/members',
      ]),
    );
    expect(Object.keys(paths['/kv/{key}']!).sort()).toEqual(['delete', 'get', 'put']);
  });

  it('refuses another datacenter, and filter expressions where there is nothing to filter', async () => {
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?dc=dc9')).text).toBe('No path to datacenter "dc9"');
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?dc=dc1')).status).toBe(200);
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?filter=Node%3D%3Dx')).status).toBe(200);
    expect((await cat(svc, 'GET', '/v1/kv/a?filter=Node%3D%3Dx')).status).toBe(400);
  });
});

describe('WAN address translation', () => {
  it('answers WAN addresses and says so when translate_wan_addrs is on', async () => {
    const wan = await catalogService({ translate_wan_addrs: true });
    await cat(wan, 'PUT', '/v1/catalog/register', {
      body: {
        Node: 'far-1',
        Address: '10.1.0.1',
        TaggedAddresses: { lan: '10.1.0.1', wan: '203.0.113.1' },
        Service: { Service: 'api', Address: '10.1.0.1', Port: 443, TaggedAddresses: { wan: { Address: '203.0.113.2', Port: 8443 } } },
      },
    });
    const nodes = await cat(wan, 'GET', '/v1/catalog/nodes');
    expect(nodes.headers.get('x-catalog-translate-addresses')).toBe('true');
    expect((nodes.json as unknown as Record<string, unknown>[])[0]).toMatchObject({ Address: '203.0.113.1' });
    const api = (await cat(wan, 'GET', '/v1/catalog/service/api')).json as unknown as Record<string, unknown>[];
    expect(api[0]).toMatchObject({ Address: '203.0.113.1', ServiceAddress: '203.0.113.2' });
    const members = (await cat(wan, 'GET', '/v1/agent/members')).json as unknown as Record<string, unknown>[];
    expect(members[0]).toMatchObject({ Addr: '203.0.113.1' });
  });
});
