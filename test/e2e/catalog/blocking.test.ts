import { beforeAll, describe, expect, it } from 'vitest';
import { cat, catalogService, type CatalogService } from './helpers';

let svc: CatalogService;
beforeAll(async () => {
  svc = await catalogService();
});

const indexOf = (r: { headers: Headers }) => Number(r.headers.get('x-catalog-index'));

describe('blocking queries', () => {
  it('a read with ?index= waits until a write moves the index, then answers the new data', async () => {
    await cat(svc, 'PUT', '/v1/kv/watch/k', { raw: 'before' });
    const first = await cat(svc, 'GET', '/v1/kv/watch/k');
    const idx = indexOf(first);
    let answered = false;
    const waiting = cat(svc, 'GET', `/v1/kv/watch/k?index=${idx}&wait=15s`).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 400));
    expect(answered).toBe(false);
    await cat(svc, 'PUT', '/v1/kv/watch/k', { raw: 'after' });
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(Buffer.from((r.json as unknown as { Value: string }[])[0]!.Value, 'base64').toString()).toBe('after');
    expect(indexOf(r)).toBeGreaterThan(idx);
  });

  it('a wait that sees no write ends after the wait with the same index', async () => {
    const idx = indexOf(await cat(svc, 'GET', '/v1/catalog/services'));
    const r = await cat(svc, 'GET', `/v1/catalog/services?index=${idx}&wait=1s`);
    expect(r.status).toBe(200);
    expect(indexOf(r)).toBe(idx);
  });

  it('an index already passed answers at once; a missing key can be watched until it appears', async () => {
    const r = await cat(svc, 'GET', '/v1/catalog/nodes?index=1&wait=10s');
    expect(r.status).toBe(200);
    const missing = await cat(svc, 'GET', '/v1/kv/watch/later');
    expect(missing.status).toBe(404);
    const waiting = cat(svc, 'GET', `/v1/kv/watch/later?index=${indexOf(missing)}&wait=15s`);
    await cat(svc, 'PUT', '/v1/kv/watch/later', { raw: 'here' });
    expect((await waiting).status).toBe(200);
  });

  it('catalog reads block on registrations too', async () => {
    const idx = indexOf(await cat(svc, 'GET', '/v1/catalog/service/late'));
    const waiting = cat(svc, 'GET', `/v1/catalog/service/late?index=${idx}&wait=15s`);
    await cat(svc, 'PUT', '/v1/catalog/register', { body: { Node: 'late-1', Address: '10.0.0.9', Service: { Service: 'late' } } });
    expect(((await waiting).json as unknown as unknown[]).length).toBe(1);
  });

  it('refuses malformed index and wait values', async () => {
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?index=abc')).status).toBe(400);
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?index=-1')).status).toBe(400);
    expect((await cat(svc, 'GET', '/v1/catalog/nodes?index=5&wait=forever')).text).toMatch(/Invalid wait time/);
  });
});
