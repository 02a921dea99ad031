/**
 * The modify index of KV writes taken in one transaction with the entry (lib/catalog/kv-write.ts),
 * with versions guessed from what an instance last saw, and a key's GET answering its own
 * ModifyIndex (Consul's kvs_endpoint.go Get): two catalog instances on one DynamoDB-compatible
 * table (dynalite: BatchGetItem and TransactWriteItems as DynamoDB answers them), each with its
 * own per-process state, as two Lambda instances.
 */
import type { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCatalogApp } from '../../../lib/catalog/app';
import { parseCatalogSettings } from '../../../lib/catalog/settings';
import type { Deps } from '../../../lib/deps';
import { call, type CallOptions } from '../../helpers/service';
import { instancesOnOneStore } from '../../helpers/instances';

type Entry = { Key: string; ModifyIndex: number; CreateIndex: number; Value: string | null };

let a: Hono;
let b: Hono;
let deps: Deps[];

beforeAll(async () => {
  const inst = await instancesOnOneStore([], 2);
  deps = inst.deps;
  const settings = parseCatalogSettings({ acl: { enabled: false } }, {});
  [a, b] = deps.map((d) => createCatalogApp(d, settings)) as [Hono, Hono];
});

const req = (app: Hono, method: string, path: string, o: CallOptions = {}) => call(app, method, path, o);
const indexOf = (r: { headers: Headers }) => Number(r.headers.get('x-consul-index'));
const entry = async (app: Hono, key: string) => ((await req(app, 'GET', `/v1/kv/${key}`)).json as unknown as Entry[])[0]!;

describe('kv modify index', () => {
  it("a key's read answers its ModifyIndex as X-Consul-Index; a missing key the catalog's index", async () => {
    await req(a, 'PUT', '/v1/kv/ix/one', { raw: '1' });
    await req(a, 'PUT', '/v1/kv/ix/two', { raw: '2' });
    const one = await req(b, 'GET', '/v1/kv/ix/one');
    const two = await req(b, 'GET', '/v1/kv/ix/two');
    expect(indexOf(one)).toBe((one.json as unknown as Entry[])[0]!.ModifyIndex);
    expect(indexOf(two)).toBe((two.json as unknown as Entry[])[0]!.ModifyIndex);
    expect(indexOf(two)).toBeGreaterThan(indexOf(one));
    const missing = await req(b, 'GET', '/v1/kv/ix/none');
    expect(missing.status).toBe(404);
    expect(indexOf(missing)).toBeGreaterThanOrEqual(indexOf(two));
    expect(Number((await req(a, 'GET', '/v1/kv/ix/one?raw')).headers.get('x-catalog-index'))).toBe(indexOf(one));
  });

  it('writes from two instances, each after the other, take growing ModifyIndexes and keep CreateIndex', async () => {
    await req(a, 'PUT', '/v1/kv/ix/shared', { raw: 'a0' });
    const first = await entry(a, 'ix/shared');
    let last = first.ModifyIndex;
    for (let i = 0; i < 6; i++) {
      const app = i % 2 ? a : b;
      expect((await req(app, 'PUT', '/v1/kv/ix/shared', { raw: `v${i}` })).text).toBe('true');
      const now = await entry(i % 2 ? b : a, 'ix/shared');
      expect(now.ModifyIndex).toBeGreaterThan(last);
      expect(now.CreateIndex).toBe(first.CreateIndex);
      expect(Buffer.from(now.Value!, 'base64').toString()).toBe(`v${i}`);
      last = now.ModifyIndex;
    }
  });

  it('concurrent writes and registrations on both instances never share an index', async () => {
    const writes = Array.from({ length: 24 }, (_, i) => req(i % 2 ? a : b, 'PUT', `/v1/kv/ix/many/${i % 6}`, { raw: `${i}` }));
    const regs = Array.from({ length: 4 }, (_, i) =>
      req(i % 2 ? a : b, 'PUT', '/v1/catalog/register', { body: { Node: `ix-${i}`, Address: `10.0.1.${i}` } }),
    );
    const answers = await Promise.all([...writes, ...regs]);
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    const listed = (await req(a, 'GET', '/v1/kv/ix/many/?recurse')).json as unknown as Entry[];
    const nodes = (await req(b, 'GET', '/v1/catalog/nodes')).json as unknown as { Node: string; ModifyIndex: number }[];
    const indexes = [...listed.map((e) => e.ModifyIndex), ...nodes.filter((n) => n.Node.startsWith('ix-')).map((n) => n.ModifyIndex)];
    expect(listed).toHaveLength(6);
    expect(new Set(indexes).size).toBe(indexes.length);
  });

  it('a check-and-set from an instance whose last view is stale is decided on the entry as stored', async () => {
    await req(a, 'PUT', '/v1/kv/ix/cas', { raw: 'a' });
    const mine = (await entry(a, 'ix/cas')).ModifyIndex;
    await req(b, 'PUT', '/v1/kv/ix/cas', { raw: 'b' });
    const theirs = (await entry(b, 'ix/cas')).ModifyIndex;
    expect((await req(a, 'PUT', `/v1/kv/ix/cas?cas=${mine}`, { raw: 'stale' })).text).toBe('false');
    expect((await req(a, 'PUT', `/v1/kv/ix/cas?cas=${theirs}`, { raw: 'fresh' })).text).toBe('true');
    expect((await req(b, 'GET', '/v1/kv/ix/cas?raw')).text).toBe('fresh');
  });

  it('cas=0 on a key another instance created since this one saw it absent answers false', async () => {
    expect((await req(a, 'GET', '/v1/kv/ix/born')).status).toBe(404);
    expect((await req(b, 'PUT', '/v1/kv/ix/born?cas=0', { raw: 'b' })).text).toBe('true');
    expect((await req(a, 'PUT', '/v1/kv/ix/born?cas=0', { raw: 'a' })).text).toBe('false');
    expect((await req(a, 'GET', '/v1/kv/ix/born?raw')).text).toBe('b');
  });

  it('a deleted key is written again from an instance that last saw it present', async () => {
    await req(a, 'PUT', '/v1/kv/ix/gone', { raw: '1' });
    await req(b, 'DELETE', '/v1/kv/ix/gone');
    expect((await req(a, 'PUT', '/v1/kv/ix/gone', { raw: '2' })).text).toBe('true');
    const again = await entry(b, 'ix/gone');
    expect(again.CreateIndex).toBe(again.ModifyIndex);
  });

  it("a blocking read of a key sleeps through other keys' writes and answers when the key changes", async () => {
    await req(a, 'PUT', '/v1/kv/ix/watched', { raw: 'before' });
    const idx = indexOf(await req(b, 'GET', '/v1/kv/ix/watched'));
    let answered = false;
    const waiting = req(b, 'GET', `/v1/kv/ix/watched?index=${idx}&wait=15s`).then((r) => ((answered = true), r));
    await req(a, 'PUT', '/v1/kv/ix/other', { raw: 'x' });
    await new Promise((r) => setTimeout(r, 600));
    expect(answered).toBe(false);
    await req(a, 'PUT', '/v1/kv/ix/watched', { raw: 'after' });
    const r = await waiting;
    expect(indexOf(r)).toBeGreaterThan(idx);
    expect(Buffer.from((r.json as unknown as Entry[])[0]!.Value!, 'base64').toString()).toBe('after');
  });

  it('a blocking read of a key that sees no change ends after the wait with the same index', async () => {
    await req(a, 'PUT', '/v1/kv/ix/still', { raw: 's' });
    const idx = indexOf(await req(b, 'GET', '/v1/kv/ix/still'));
    const r = await req(b, 'GET', `/v1/kv/ix/still?index=${idx}&wait=1s`);
    expect(r.status).toBe(200);
    expect(indexOf(r)).toBe(idx);
  });

  it('a blocking read of a key that is deleted answers 404 with a larger index', async () => {
    await req(a, 'PUT', '/v1/kv/ix/doomed', { raw: 'd' });
    const idx = indexOf(await req(b, 'GET', '/v1/kv/ix/doomed'));
    const waiting = req(b, 'GET', `/v1/kv/ix/doomed?index=${idx}&wait=15s`);
    await req(a, 'DELETE', '/v1/kv/ix/doomed');
    const r = await waiting;
    expect(r.status).toBe(404);
    expect(indexOf(r)).toBeGreaterThan(idx);
  });

  it('takes over a counter that stores before this one moved with an atomic add', async () => {
    const fresh = await instancesOnOneStore([], 1);
    const app = createCatalogApp(fresh.deps[0]!, parseCatalogSettings({ acl: { enabled: false } }, {}));
    await fresh.deps[0]!.store.partition('catalog').increment('meta/index', 41);
    await req(app, 'PUT', '/v1/kv/old/k', { raw: 'v' });
    expect((await entry(app, 'old/k')).ModifyIndex).toBe(42);
    await req(app, 'PUT', '/v1/catalog/register', { body: { Node: 'old-n', Address: '10.0.2.1' } });
    const nodes = (await req(app, 'GET', '/v1/catalog/nodes')).json as unknown as { ModifyIndex: number }[];
    expect(nodes[0]!.ModifyIndex).toBe(43);
  });
});
