/** HEAD on the catalog (lib/catalog/app.ts): the GET answer's status and headers, no body, the same ACLs. */
import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, tokenFor, type CatalogService } from './helpers';

let svc: CatalogService;
let reader: string;

beforeAll(async () => {
  svc = await catalogService({ acl: { enabled: true, default_policy: 'deny' } });
  await cat(svc, 'PUT', '/v1/kv/app/one', { catalogToken: svc.root, raw: 'value-1' });
  reader = await tokenFor(svc, 'head-reader', { 'catalog/kv/app/*': ['read'] });
});

describe('catalog HEAD', () => {
  it('answers a KV read with its status and index headers, without the body', async () => {
    const get = await cat(svc, 'GET', '/v1/kv/app/one?raw', { catalogToken: reader });
    const head = await cat(svc, 'HEAD', '/v1/kv/app/one?raw', { catalogToken: reader });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-consul-index')).toBe(get.headers.get('x-consul-index'));
    expect(head.headers.get('x-catalog-index')).toMatch(/^\d+$/);
  });

  it('keeps the ACLs and the not-found answer of a GET', async () => {
    expect((await cat(svc, 'HEAD', '/v1/kv/app/one')).status).toBe(403);
    const missing = await cat(svc, 'HEAD', '/v1/kv/app/none', { catalogToken: reader });
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('');
  });

  it('is 405 where there is no read', async () => {
    const r = await cat(svc, 'HEAD', '/v1/catalog/register', { catalogToken: svc.root });
    expect(r.status).toBe(405);
    expect(r.text).toBe('');
  });
});
