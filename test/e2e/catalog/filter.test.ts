/**
 * Issue 12 item 13: `?node-meta=key:value` and `?filter` in the reference catalog's documented
 * grammar on the catalog and agent list endpoints; every expression this catalog cannot
 * evaluate is a 400 naming the problem, never ignored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
const j = (r: { text: string }) => JSON.parse(r.text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
const q = encodeURIComponent;

beforeAll(async () => {
  svc = await catalogService();
  const reg = (Node: string, env: string, port: number, Meta: Record<string, string>, Tags: string[]) =>
    cat(svc, 'PUT', '/v1/catalog/register', {
      body: { Node, Address: '10.1.1.1', NodeMeta: { env, rack: 'r1' }, Service: { Service: 'web', Port: port, Meta, Tags } },
    });
  await reg('prod-1', 'prod', 80, { version: '2' }, ['blue']);
  await reg('prod-2', 'prod', 81, { version: '1' }, []);
  await reg('dev-1', 'dev', 82, { version: '2' }, ['blue']);
  await cat(svc, 'PUT', '/v1/catalog/register', {
    body: { Node: 'dev-1', Address: '10.1.1.1', NodeMeta: { env: 'dev', rack: 'r1' }, Service: { Service: 'db', Port: 5432 } },
  });
});

describe('?node-meta on the catalog', () => {
  it('catalog/nodes, catalog/service/<name> and catalog/services keep only nodes with every pair', async () => {
    expect(j(await cat(svc, 'GET', '/v1/catalog/nodes?node-meta=env:prod')).map((n: { Node: string }) => n.Node)).toEqual([
      'prod-1',
      'prod-2',
    ]);
    expect(j(await cat(svc, 'GET', '/v1/catalog/nodes?node-meta=env:prod&node-meta=rack:r2'))).toEqual([]);
    expect(j(await cat(svc, 'GET', '/v1/catalog/service/web?node-meta=env:dev')).map((n: { Node: string }) => n.Node)).toEqual(['dev-1']);
    expect(j(await cat(svc, 'GET', '/v1/catalog/services?node-meta=env:prod'))).toEqual({ web: ['blue'] });
    expect(j(await cat(svc, 'GET', '/v1/catalog/services?node-meta=env:dev'))).toEqual({ db: [], web: ['blue'] });
  });

  it('is a 400 where it cannot apply, or without a key', async () => {
    expect(await cat(svc, 'GET', '/v1/kv/?keys&node-meta=env:prod')).toMatchObject({
      status: 400,
      text: expect.stringContaining('node-meta is not supported on /v1/kv/'),
    });
    expect(await cat(svc, 'GET', '/v1/catalog/nodes?node-meta=:x')).toMatchObject({
      status: 400,
      text: expect.stringContaining('Invalid node-meta'),
    });
  });
});

describe('?filter on the catalog and agent list endpoints', () => {
  it('filters catalog/nodes, catalog/service/<name>, catalog/services, catalog/node/<name> and agent/members', async () => {
    const names = (r: { text: string }) => j(r).map((n: { Node?: string; Name?: string }) => n.Node ?? n.Name);
    expect(names(await cat(svc, 'GET', `/v1/catalog/nodes?filter=${q('Meta.env == prod and Node != "prod-2"')}`))).toEqual(['prod-1']);
    expect(
      names(await cat(svc, 'GET', `/v1/catalog/service/web?filter=${q('ServiceMeta.version == 2 and NodeMeta.env == prod')}`)),
    ).toEqual(['prod-1']);
    expect(j(await cat(svc, 'GET', `/v1/catalog/services?filter=${q('ServiceName == db')}`))).toEqual({ db: [] });
    expect(Object.keys(j(await cat(svc, 'GET', `/v1/catalog/node/dev-1?filter=${q('Port == 5432')}`)).Services)).toEqual(['db']);
    expect(names(await cat(svc, 'GET', `/v1/agent/members?filter=${q('Name matches "^dev"')}`))).toEqual(['dev-1']);
  });

  it('answers 400 naming the problem for a bad expression or an endpoint without filtering', async () => {
    const gt = await cat(svc, 'GET', `/v1/catalog/services?filter=${q('ServicePort > 1')}`);
    expect(gt).toMatchObject({ status: 400, text: expect.stringContaining('expected an operator') });
    const bad = await cat(svc, 'GET', `/v1/catalog/nodes?filter=${q('Bogus == 1')}`);
    expect(bad).toMatchObject({ status: 400, text: expect.stringContaining('Selector "Bogus" is not valid') });
    const kv = await cat(svc, 'GET', `/v1/kv/?recurse&filter=${q('Key == a')}`);
    expect(kv).toMatchObject({ status: 400, text: expect.stringContaining('filtering is not supported on /v1/kv/') });
  });
});
