import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/service';
import { cat, catalogService, tokenFor, type CatalogService } from './helpers';

let svc: CatalogService;
let reader: string;
let writer: string;
let nobody: string;
let onlyWeb: string;

beforeAll(async () => {
  svc = await catalogService({ acl: { enabled: true, default_policy: 'deny' } });
  // Seed as root.
  const root = { catalogToken: svc.root };
  await cat(svc, 'PUT', '/v1/kv/app/public', { ...root, raw: 'p' });
  await cat(svc, 'PUT', '/v1/kv/app/secret', { ...root, raw: 's' });
  await cat(svc, 'PUT', '/v1/catalog/register', { ...root, body: { Node: 'n1', Address: '10.0.0.1', Service: { Service: 'web' } } });
  await cat(svc, 'PUT', '/v1/catalog/register', { ...root, body: { Node: 'n2', Address: '10.0.0.2', Service: { Service: 'db' } } });
  reader = await tokenFor(svc, 'cat-reader', {
    'catalog/kv/app/*': ['read', 'list'],
    'catalog/kv/app/secret': ['deny'],
    'catalog/service/*': ['read'],
    'catalog/node/*': ['read'],
  });
  writer = await tokenFor(svc, 'cat-writer', {
    'catalog/kv/w/*': ['create', 'update', 'read', 'delete'],
    'catalog/node/w-*': ['create', 'update', 'delete'],
    'catalog/service/w-*': ['create', 'update', 'delete'],
  });
  nobody = await tokenFor(svc, 'cat-nobody', { 'sys/health': ['read'] });
  onlyWeb = await tokenFor(svc, 'cat-web', { 'catalog/service/web': ['read'], 'catalog/node/*': ['read'] });
});

describe('catalog ACLs (default deny)', () => {
  it('reads the token from X-Catalog-Token, X-Consul-Token, Bearer (any case) and ?token=', async () => {
    const sent: Record<string, string>[] = [
      { 'x-catalog-token': reader },
      { 'x-consul-token': reader },
      { authorization: `bEaReR ${reader}` },
    ];
    for (const headers of sent) {
      expect((await call(svc.catalog, 'GET', '/v1/kv/app/public?raw', { headers })).text).toBe('p');
    }
    expect((await call(svc.catalog, 'GET', `/v1/kv/app/public?raw&token=${encodeURIComponent(reader)}`)).text).toBe('p');
  });

  it('anonymous callers get only the default policy: deny', async () => {
    const r = await cat(svc, 'GET', '/v1/kv/app/public');
    expect(r).toMatchObject({ status: 403, text: 'Permission denied' });
    expect(r.headers.get('x-catalog-default-acl-policy')).toBe('deny');
  });

  it('an unknown token is refused everywhere with "ACL not found"', async () => {
    for (const [m, p] of [
      ['GET', '/v1/kv/app/public'],
      ['GET', '/v1/catalog/services'],
      ['GET', '/v1/agent/members'],
      ['PUT', '/v1/kv/w/x'],
    ] as const) {
      const r = await cat(svc, m, p, { catalogToken: 'lk.not-a-real-token' });
      expect(r, p).toMatchObject({ status: 403, text: 'ACL not found' });
    }
  });

  it('a denied token gets 403 on every single-resource endpoint and trimmed lists elsewhere', async () => {
    const t = { catalogToken: nobody };
    expect((await cat(svc, 'GET', '/v1/kv/app/public', t)).status).toBe(403);
    expect((await cat(svc, 'PUT', '/v1/kv/app/new', { ...t, raw: 'x' })).status).toBe(403);
    expect((await cat(svc, 'DELETE', '/v1/kv/app/public', t)).status).toBe(403);
    expect((await cat(svc, 'DELETE', '/v1/kv/app/?recurse', t)).status).toBe(403);
    expect((await cat(svc, 'PUT', '/v1/catalog/register', { ...t, body: { Node: 'x', Address: '1.2.3.4' } })).status).toBe(403);
    expect((await cat(svc, 'PUT', '/v1/catalog/deregister', { ...t, body: { Node: 'n1' } })).status).toBe(403);
    expect((await cat(svc, 'PUT', '/v1/catalog/deregister', { ...t, body: { Node: 'n1', ServiceID: 'web' } })).status).toBe(403);
    for (const p of ['/v1/catalog/services', '/v1/catalog/nodes', '/v1/agent/members', '/v1/catalog/service/web', '/v1/catalog/node/n1']) {
      const r = await cat(svc, 'GET', p, t);
      expect(r.status, p).toBe(200);
      expect(['{}', '[]', 'null'], p).toContain(r.text);
      expect(r.headers.get('x-catalog-results-filtered-by-acls'), p).toBe('true');
    }
    const keys = await cat(svc, 'GET', '/v1/kv/app/?keys', t);
    expect(keys.status).toBe(404);
    // Nothing was lost.
    expect((await cat(svc, 'GET', '/v1/kv/app/public?raw', { catalogToken: svc.root })).text).toBe('p');
    expect((await cat(svc, 'GET', '/v1/catalog/node/n1', { catalogToken: svc.root })).json).toMatchObject({ Node: { Node: 'n1' } });
  });

  it('lists drop what the token may not read and say so', async () => {
    const r = await cat(svc, 'GET', '/v1/kv/app/?recurse', { catalogToken: reader });
    expect((r.json as unknown as { Key: string }[]).map((e) => e.Key)).toEqual(['app/public']);
    expect(r.headers.get('x-catalog-results-filtered-by-acls')).toBe('true');
    expect((await cat(svc, 'GET', '/v1/kv/app/secret', { catalogToken: reader })).status).toBe(403);
    const s = await cat(svc, 'GET', '/v1/catalog/services', { catalogToken: onlyWeb });
    expect(s.json).toEqual({ web: [] });
    expect(s.headers.get('x-catalog-results-filtered-by-acls')).toBe('true');
    const all = await cat(svc, 'GET', '/v1/catalog/services', { catalogToken: reader });
    expect(all.headers.get('x-catalog-results-filtered-by-acls')).toBeNull();
  });

  it('a writer writes only where its policy says', async () => {
    const t = { catalogToken: writer };
    expect((await cat(svc, 'PUT', '/v1/kv/w/mine', { ...t, raw: 'ok' })).text).toBe('true');
    expect((await cat(svc, 'PUT', '/v1/kv/app/theirs', { ...t, raw: 'no' })).status).toBe(403);
    expect(
      (await cat(svc, 'PUT', '/v1/catalog/register', { ...t, body: { Node: 'w-1', Address: '10.9.0.1', Service: { Service: 'w-api' } } }))
        .text,
    ).toBe('true');
    expect(
      (await cat(svc, 'PUT', '/v1/catalog/register', { ...t, body: { Node: 'w-1', Address: '10.9.0.1', Service: { Service: 'api' } } }))
        .status,
    ).toBe(403);
    expect((await cat(svc, 'PUT', '/v1/catalog/deregister', { ...t, body: { Node: 'w-1' } })).text).toBe('true');
    expect((await cat(svc, 'DELETE', '/v1/kv/w/?recurse', t)).text).toBe('true');
  });

  it('the root token may do everything; the filtered header is not set for anonymous callers', async () => {
    expect((await cat(svc, 'GET', '/v1/kv/app/secret?raw', { catalogToken: svc.root })).text).toBe('s');
    const anon = await cat(svc, 'GET', '/v1/catalog/services');
    expect(anon.json).toEqual({});
    expect(anon.headers.get('x-catalog-results-filtered-by-acls')).toBeNull();
  });
});

describe('catalog ACL settings', () => {
  it('default allow lets anonymous callers in unless a rule denies', async () => {
    const open = await catalogService({ acl: { enabled: true, default_policy: 'allow' } });
    expect((await cat(open, 'PUT', '/v1/kv/free', { raw: 'x' })).text).toBe('true');
    const denied = await tokenFor(open, 'no-kv', { 'catalog/kv/*': ['deny'] });
    expect((await cat(open, 'GET', '/v1/kv/free', { catalogToken: denied })).status).toBe(403);
    expect((await cat(open, 'GET', '/v1/catalog/nodes', { catalogToken: denied })).status).toBe(200);
  });

  it('the default token is used when none is sent', async () => {
    const base = await catalogService({ acl: { enabled: true, default_policy: 'deny' } });
    const t = await tokenFor(base, 'kv-all', { 'catalog/kv/*': ['read', 'create', 'update'] });
    const withDefault = await catalogService({ acl: { enabled: true, default_policy: 'deny', tokens: { default: t } } });
    // A different table, so the token is unknown there: the default token is still checked.
    expect((await cat(withDefault, 'GET', '/v1/kv/x')).text).toBe('ACL not found');
    const sameStore = {
      ...base,
      catalog: (await import('../../../lib/catalog/app')).createCatalogApp(base.deps, { ...base.settings, defaultToken: t }),
    };
    expect((await cat(sameStore, 'PUT', '/v1/kv/x', { raw: 'y' })).text).toBe('true');
  });

  it('with ACLs disabled everything is allowed and the default policy is still echoed', async () => {
    const off = await catalogService({ acl: { enabled: false, default_policy: 'deny' } });
    const r = await cat(off, 'PUT', '/v1/kv/any', { raw: 'x', catalogToken: 'garbage' });
    expect(r.text).toBe('true');
    expect(r.headers.get('x-catalog-default-acl-policy')).toBe('deny');
  });
});
