/**
 * The contract of the calls across partitions, Store.getMany and Store.transact: part of the
 * storage contract (test/store/store-contract.test.ts), run on every store it runs on. Where a
 * case needs DynamoDB's protocol (unprocessed keys, the raw answer of a cancelled transaction),
 * it runs on the DynamoDB stores only, through the real server.
 */
import { describe, expect, it } from 'vitest';
import { ConflictError, ExistsError, InvalidInput } from '../../lib/domain-errors';
import { signJsonPost } from '../../lib/aws/sigv4';
import { TransactionCancelled, type DynamoApi } from '../../lib/store/dynamo-api';
import { chunkPartition, INLINE_LIMIT } from '../../lib/store/dynamo-params';
import { DynamoStore } from '../../lib/store/dynamo-store';
import { MAX_TRANSACT_WRITES, type Json, type Store, type TransactWrite } from '../../lib/store/store';

export interface BatchTestStore {
  store: Store;
  sideRecords(partition: string): Promise<number>;
  chunked: boolean;
  dynamo?: { store: DynamoStore; endpoint: string };
}

/** A JSON value of about `bytes` bytes (stored in chunks on DynamoDB). */
const big = (bytes: number, seed: string): Json => ({ seed, text: `${seed}-é😀-`.repeat(Math.ceil(bytes / 12)) });

/** The same DynamoDB store, its API calls passed through `wrap` (still to the real server). */
function wrapped(t: BatchTestStore, wrap: (api: DynamoApi) => Partial<DynamoApi>): DynamoStore {
  const api = t.dynamo!.store.api;
  return new DynamoStore({ ...api, ...wrap(api) }, t.dynamo!.store.table);
}

/** Sends a raw JSON request to the DynamoDB server and returns the status and the parsed body. */
async function raw(endpoint: string, op: string, input: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = JSON.stringify(input);
  const headers = signJsonPost({
    host: new URL(endpoint).host,
    service: 'dynamodb',
    region: 'us-east-1',
    target: `DynamoDB_20120810.${op}`,
    contentType: 'application/x-amz-json-1.0',
    body,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const res = await fetch(endpoint, { method: 'POST', headers: headers as Record<string, string>, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** `dynamo`: the store under test is the DynamoDB store (cases of its protocol run too). */
export function batchContract(current: () => BatchTestStore, dynamo: boolean): void {
  describe('getMany', () => getManyCases(current));
  describe('transact', () => transactCases(current));
  if (dynamo) describe('getMany and transact on the DynamoDB protocol', () => protocolCases(current));
}

function getManyCases(current: () => BatchTestStore): void {
  it('returns items in the order asked, undefined for missing ones, duplicates answered each time', async () => {
    const { store } = current();
    await store.partition('p').put('a', { a: 1 });
    await store.partition('p').put('a', { a: 2 });
    await store.partition('q').put('a', 'q/a', { index: { name: 'ix', sort: '1' } });
    const got = await store.getMany([
      { partition: 'q', key: 'a' },
      { partition: 'p', key: 'missing' },
      { partition: 'p', key: 'a' },
      { partition: 'q', key: 'a' },
      { partition: 'nowhere', key: 'a' },
      { partition: 'p', key: 'a' },
    ]);
    const pa = { key: 'a', value: { a: 2 }, version: 2 };
    const qa = { key: 'a', value: 'q/a', version: 1 };
    expect(got).toEqual([qa, undefined, pa, qa, undefined, pa]);
    expect(await store.getMany([])).toEqual([]);
    await expect(store.getMany([{ partition: 'p', key: '' }])).rejects.toBeInstanceOf(InvalidInput);
  });

  it('reads more than 100 keys (several requests underneath)', async () => {
    const { store } = current();
    const keys = Array.from({ length: 130 }, (_, i) => `k${String(i).padStart(3, '0')}`);
    await store.partition('p').batchPut(keys.map((key) => ({ key, value: { key } })));
    await store.partition('q').batchPut(keys.slice(0, 50).map((key) => ({ key, value: `q-${key}` })));
    const refs = [...keys.map((key) => ({ partition: 'p', key })), ...keys.map((key) => ({ partition: 'q', key }))];
    refs.push(...refs.slice(0, 20));
    const got = await store.getMany(refs);
    expect(got).toHaveLength(280);
    got.forEach((item, i) => {
      const { partition, key } = refs[i]!;
      if (partition === 'p') expect(item).toEqual({ key, value: { key }, version: 1 });
      else if (keys.indexOf(key) < 50) expect(item).toEqual({ key, value: `q-${key}`, version: 1 });
      else expect(item).toBeUndefined();
    });
  });

  it('reads many items near the inline limit (dynalite answers about 1.4 MB at a time, leaving the rest unprocessed)', async () => {
    const { store } = current();
    const value = (i: number) => `${i}`.padEnd(INLINE_LIMIT - 10, 'v');
    await store.partition('p').batchPut(Array.from({ length: 12 }, (_, i) => ({ key: `near/${i}`, value: value(i) })));
    const got = await store.getMany(Array.from({ length: 12 }, (_, i) => ({ partition: 'p', key: `near/${i}` })));
    expect(got.map((item) => item?.value)).toEqual(Array.from({ length: 12 }, (_, i) => value(i)));
  });

  it('returns large values whole, reading chunks of those items only', async () => {
    const t = current();
    const value = big(900_000, 'big');
    await t.store.partition('p').put('big', value);
    await t.store.partition('p').put('small', 'small');
    const refs = [
      { partition: 'p', key: 'small' },
      { partition: 'p', key: 'big' },
      { partition: 'p', key: 'big' },
    ];
    const expected = [
      { key: 'small', value: 'small', version: 1 },
      { key: 'big', value, version: 1 },
      { key: 'big', value, version: 1 },
    ];
    expect(await t.store.getMany(refs)).toEqual(expected);
    if (!t.dynamo) return; // the embedded store keeps values whole
    const queried: string[] = [];
    const counting = wrapped(t, (api) => ({
      query: (i) => {
        queried.push(`${i.ExpressionAttributeValues?.[':pk']?.S} ${i.ExpressionAttributeValues?.[':p']?.S?.split('\0')[0]}`);
        return api.query(i);
      },
    }));
    expect(await counting.getMany(refs)).toEqual(expected);
    expect(queried.length).toBeGreaterThan(0);
    expect(new Set(queried)).toEqual(new Set([`${chunkPartition('p')} big`]));
  });
}

function transactCases(current: () => BatchTestStore): void {
  it('writes puts across partitions, returns their versions, readable with get; atomicTransact', async () => {
    const { store } = current();
    expect(store.atomicTransact).toBe(true);
    await store.partition('p').put('old', 'v1');
    await store.partition('p').put('old', 'v2');
    await store.partition('q').put('pinned', 'p1');
    const versions = await store.transact([
      { partition: 'p', key: 'new', value: { n: 1 }, ifAbsent: true },
      { partition: 'p', key: 'old', value: 'v3' },
      { partition: 'q', key: 'pinned', value: 'p2', ifVersion: 1 },
      { partition: 'q', key: 'fresh', value: [1, 2] },
    ]);
    expect(versions).toEqual([1, 3, 2, 1]);
    expect(await store.getMany(['new', 'old'].map((key) => ({ partition: 'p', key })))).toEqual([
      { key: 'new', value: { n: 1 }, version: 1 },
      { key: 'old', value: 'v3', version: 3 },
    ]);
    expect(await store.partition('q').get('pinned')).toEqual({ key: 'pinned', value: 'p2', version: 2 });
    expect(await store.partition('q').get('fresh')).toEqual({ key: 'fresh', value: [1, 2], version: 1 });
    expect(await store.transact([])).toEqual([]);
  });

  it('an ifAbsent that fails: ExistsError and nothing written', async () => {
    const { store } = current();
    await store.partition('q').put('taken', 'first');
    await store.partition('p').put('other', 'before');
    const writes: TransactWrite[] = [
      { partition: 'p', key: 'lease', value: 'L', ifAbsent: true, index: { name: 'exp', sort: '1' } },
      { partition: 'p', key: 'other', value: 'after' },
      { partition: 'q', key: 'taken', value: 'second', ifAbsent: true },
    ];
    await expect(store.transact(writes)).rejects.toBeInstanceOf(ExistsError);
    expect(await store.partition('p').get('lease')).toBeUndefined();
    expect(await store.partition('p').get('other')).toEqual({ key: 'other', value: 'before', version: 1 });
    expect(await store.partition('q').get('taken')).toEqual({ key: 'taken', value: 'first', version: 1 });
    expect((await store.partition('p').queryIndex('exp')).items).toEqual([]);
  });

  it('an ifVersion that fails (stale or missing item): ConflictError and nothing written', async () => {
    const { store } = current();
    const p = store.partition('p');
    await p.put('a', 'a1');
    await p.put('a', 'a2');
    await p.put('b', 'b1');
    for (const stale of [
      { partition: 'p', key: 'a', value: 'a3', ifVersion: 1 },
      { partition: 'p', key: 'a', delete: true as const, ifVersion: 3 },
      { partition: 'p', key: 'missing', value: 'm', ifVersion: 1 },
    ]) {
      const writes: TransactWrite[] = [{ partition: 'p', key: 'b', delete: true }, { partition: 'q', key: 'new', value: 'n' }, stale];
      await expect(store.transact(writes)).rejects.toBeInstanceOf(ConflictError);
    }
    expect(await store.getMany(['a', 'b', 'missing'].map((key) => ({ partition: 'p', key })))).toEqual([
      { key: 'a', value: 'a2', version: 2 },
      { key: 'b', value: 'b1', version: 1 },
      undefined,
    ]);
    expect(await store.partition('q').get('new')).toBeUndefined();
  });

  it('condition-only checks: hold, or fail with the single write’s error and nothing written', async () => {
    const { store } = current();
    await store.partition('acl').put('token', 't', {});
    await store.partition('acl').put('token', 't2', {});
    const write = { partition: 'p', key: 'w', value: 'written' };
    expect(await store.transact([{ partition: 'acl', key: 'token', check: { ifVersion: 2 } }, write])).toEqual([0, 1]);
    expect(
      await store.transact([
        { partition: 'acl', key: 'nothing', check: { ifAbsent: true } },
        { ...write, value: 'again' },
      ]),
    ).toEqual([0, 2]);
    await expect(
      store.transact([
        { partition: 'acl', key: 'token', check: { ifVersion: 1 } },
        { ...write, value: 'x' },
      ]),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(
      store.transact([
        { partition: 'acl', key: 'token', check: { ifAbsent: true } },
        { ...write, value: 'x' },
      ]),
    ).rejects.toBeInstanceOf(ExistsError);
    await expect(
      store.transact([
        { partition: 'acl', key: 'gone', check: { ifVersion: 1 } },
        { ...write, value: 'x' },
      ]),
    ).rejects.toBeInstanceOf(ConflictError);
    await expect(store.transact([{ partition: 'acl', key: 'token', check: {} }])).rejects.toBeInstanceOf(InvalidInput);
    expect(await store.partition('p').get('w')).toEqual({ key: 'w', value: 'again', version: 2 });
    expect(await store.partition('acl').get('token')).toEqual({ key: 'token', value: 't2', version: 2 });
  });

  it('deletes with and without a version; a delete of a missing item is a no-op', async () => {
    const { store } = current();
    const p = store.partition('p');
    await p.put('a', 1, { index: { name: 'ix', sort: 'a' } });
    await p.put('a', 2);
    await p.put('b', 1);
    expect(
      await store.transact([
        { partition: 'p', key: 'a', delete: true, ifVersion: 2 },
        { partition: 'p', key: 'b', delete: true },
      ]),
    ).toEqual([0, 0]);
    expect(
      await store.getMany([
        { partition: 'p', key: 'a' },
        { partition: 'p', key: 'b' },
      ]),
    ).toEqual([undefined, undefined]);
    expect((await p.queryIndex('ix')).items).toEqual([]);
    expect(await store.transact([{ partition: 'p', key: 'never', delete: true }])).toEqual([0]);
    await expect(store.transact([{ partition: 'p', key: 'never', delete: true, ifVersion: 1 }])).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses more than 100 writes, two writes of one item, values too large for one item', async () => {
    const { store } = current();
    const many = Array.from({ length: MAX_TRANSACT_WRITES + 1 }, (_, i) => ({ partition: 'p', key: `k${i}`, value: i }));
    await expect(store.transact(many)).rejects.toBeInstanceOf(InvalidInput);
    expect((await store.partition('p').listKeys('')).items).toEqual([]);
    expect(await store.transact(many.slice(0, MAX_TRANSACT_WRITES))).toEqual(many.slice(0, MAX_TRANSACT_WRITES).map(() => 1));
    const twice: TransactWrite[] = [
      { partition: 'q', key: 'x', value: 1 },
      { partition: 'q', key: 'x', check: { ifAbsent: true } },
    ];
    await expect(store.transact(twice)).rejects.toBeInstanceOf(InvalidInput);
    await expect(store.transact([{ partition: 'q', key: 'big', value: 'x'.repeat(INLINE_LIMIT) }])).rejects.toBeInstanceOf(InvalidInput);
    await expect(store.transact([{ partition: 'q', key: '', value: 1 }])).rejects.toBeInstanceOf(InvalidInput);
    expect((await store.partition('q').listKeys('')).items).toEqual([]);
  });

  it('writes sparse index entries as put does: set, kept when not given, removed with null', async () => {
    const { store } = current();
    await store.transact([
      { partition: 'p', key: 'a', value: 'a', index: { name: 'exp', sort: '2' } },
      { partition: 'p', key: 'b', value: 'b', index: { name: 'exp', sort: '1' }, ifAbsent: true },
      { partition: 'q', key: 'a', value: 'qa', index: { name: 'exp', sort: '0' } },
    ]);
    const keys = async () => (await store.partition('p').queryIndex('exp')).items.map((i) => `${i.key}@${i.version}`);
    expect(await keys()).toEqual(['b@1', 'a@1']);
    await store.transact([
      { partition: 'p', key: 'a', value: 'a2', ifVersion: 1 },
      { partition: 'p', key: 'b', value: 'b2', index: { name: 'exp', sort: '3' } },
    ]);
    expect(await keys()).toEqual(['a@2', 'b@2']);
    await store.transact([{ partition: 'p', key: 'a', value: 'a3', index: null }]);
    expect(await keys()).toEqual(['b@2']);
    expect((await store.partition('q').queryIndex('exp')).items.map((i) => i.value)).toEqual(['qa']);
  });

  it('replaces and deletes large values, their chunks removed', async () => {
    const t = current();
    const p = t.store.partition('p');
    await p.put('big', big(700_000, 'one'));
    await p.put('big2', big(700_000, 'two'));
    expect(await t.sideRecords('p')).toBeGreaterThanOrEqual(t.chunked ? 4 : 0);
    expect(
      await t.store.transact([
        { partition: 'p', key: 'big', value: 'small now' },
        { partition: 'p', key: 'big2', delete: true, ifVersion: 1 },
      ]),
    ).toEqual([2, 0]);
    expect(await p.get('big')).toEqual({ key: 'big', value: 'small now', version: 2 });
    expect(await p.get('big2')).toBeUndefined();
    expect(await t.sideRecords('p')).toBe(0);
    await p.put('big', big(700_000, 'three'), { ifVersion: 2 });
    expect(await t.store.transact([{ partition: 'p', key: 'big', value: 'small again', ifVersion: 3 }])).toEqual([4]);
    expect(await t.sideRecords('p')).toBe(0);
  });

  it('concurrent transactions claiming one item: exactly one of 20 lands, the others write nothing', async () => {
    const { store } = current();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        store.transact([
          { partition: 'p', key: `mine/${i}`, value: i },
          { partition: 'q', key: 'claim', value: { by: i }, ifAbsent: true },
        ]),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ExistsError);
    expect((await store.partition('q').get('claim'))?.value).toEqual({ by: won[0] });
    expect((await store.partition('p').listKeys('mine/')).items).toEqual([`mine/${won[0]}`]);
  });
}

/**
 * DynamoDB stores only: unprocessed keys and cancelled transactions through a wrapper of the
 * real API, and the same raw requests on dynalite and on DynamoDB Local (one answer shape).
 */
function protocolCases(current: () => BatchTestStore): void {
  it('asks again for unprocessed keys until all are read, and gives up on keys never processed', async () => {
    const t = current();
    const keys = Array.from({ length: 150 }, (_, i) => `u${i}`);
    await t.store.partition('p').batchPut(keys.map((key) => ({ key, value: key })));
    const refs = keys.map((key) => ({ partition: 'p', key }));
    let calls = 0;
    // The real server answers half of each first request; the other half comes back unprocessed.
    const halving = wrapped(t, (api) => ({
      batchGetItem: async (i) => {
        calls++;
        const [table, ask] = Object.entries(i.RequestItems!)[0]!;
        const keys = ask.Keys!;
        if (calls > 2 || keys.length < 2) return api.batchGetItem(i);
        const half = Math.ceil(keys.length / 2);
        const out = await api.batchGetItem({ RequestItems: { [table]: { ...ask, Keys: keys.slice(0, half) } } });
        return { ...out, UnprocessedKeys: { [table]: { ...ask, Keys: keys.slice(half) } } };
      },
    }));
    expect((await halving.getMany(refs)).map((i) => i?.value)).toEqual(keys);
    expect(calls).toBeGreaterThan(2);
    const never = wrapped(t, () => ({
      batchGetItem: async (i) => ({ Responses: {}, UnprocessedKeys: i.RequestItems }),
    }));
    await expect(never.getMany(refs.slice(0, 3))).rejects.toThrow(/unprocessed/);
  });

  it('a cancelled transaction answers TransactionCanceledException with a reason per item', async () => {
    const t = current();
    const dynamo = t.dynamo!;
    const table = dynamo.store.table;
    await t.store.partition('p').put('a', 'a');
    const key = (sk: string) => ({ pk: { S: 'p' }, sk: { S: sk } });
    const ok = await raw(dynamo.endpoint, 'TransactWriteItems', {
      TransactItems: [
        {
          ConditionCheck: {
            TableName: table,
            Key: key('a'),
            ConditionExpression: 'ver = :v',
            ExpressionAttributeValues: { ':v': { N: '1' } },
          },
        },
        { Put: { TableName: table, Item: { ...key('b'), ver: { N: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } },
      ],
    });
    expect(ok).toEqual({ status: 200, body: {} });
    const cancelled = await raw(dynamo.endpoint, 'TransactWriteItems', {
      TransactItems: [
        { Update: { TableName: table, Key: key('c'), UpdateExpression: 'SET v = :x', ExpressionAttributeValues: { ':x': { S: 'x' } } } },
        {
          Delete: {
            TableName: table,
            Key: key('a'),
            ConditionExpression: '#v = :v',
            ExpressionAttributeNames: { '#v': 'ver' },
            ExpressionAttributeValues: { ':v': { N: '2' } },
          },
        },
      ],
    });
    expect(cancelled).toEqual({
      status: 400,
      body: {
        __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
        CancellationReasons: [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }],
        Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]',
      },
    });
    expect(await t.store.partition('p').get('c')).toBeUndefined();
    expect(await t.store.partition('p').get('a')).toEqual({ key: 'a', value: 'a', version: 1 });
  });

  it('sends a transaction cancelled by a conflict again, and gives up with ConflictError', async () => {
    const t = current();
    let sent = 0;
    // The first attempt is cancelled as DynamoDB cancels one that met another transaction.
    const once = wrapped(t, (api) => ({
      transactWriteItems: async (i) => {
        if (++sent === 1) throw new TransactionCancelled(['None', 'TransactionConflict']);
        return api.transactWriteItems(i);
      },
    }));
    const writes: TransactWrite[] = [
      { partition: 'p', key: 'a', value: 1, ifAbsent: true },
      { partition: 'p', key: 'b', value: 2, ifAbsent: true },
    ];
    expect(await once.transact(writes)).toEqual([1, 1]);
    expect(sent).toBe(2);
    const always = wrapped(t, () => ({
      transactWriteItems: async () => {
        throw new TransactionCancelled(['TransactionConflict', 'None']);
      },
    }));
    await expect(always.transact([{ partition: 'p', key: 'c', value: 3 }])).rejects.toBeInstanceOf(ConflictError);
    expect(await t.store.partition('p').get('c')).toBeUndefined();
  });

  it('refuses an empty transaction, more than 100 items and an item with two operations', async () => {
    const t = current();
    const dynamo = t.dynamo!;
    const table = dynamo.store.table;
    const check = (sk: string) => ({
      ConditionCheck: { TableName: table, Key: { pk: { S: 'p' }, sk: { S: sk } }, ConditionExpression: 'attribute_not_exists(pk)' },
    });
    const refused = async (items: unknown[]) => {
      const out = await raw(dynamo.endpoint, 'TransactWriteItems', { TransactItems: items });
      expect(out.status).toBe(400);
      expect(String(out.body.__type)).toMatch(/#ValidationException$/);
    };
    await refused([]);
    await refused(Array.from({ length: 101 }, (_, i) => check(`k${i}`)));
    await refused([check('a'), { Delete: { TableName: table, Key: { pk: { S: 'p' }, sk: { S: 'a' } } } }]);
  });
}
