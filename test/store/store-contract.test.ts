/**
 * The storage contract (lib/store/store.ts), run against the DynamoDB store on dynalite and on
 * Amazon's DynamoDB Local, and against the embedded LevelDB store of the local service. Where
 * the engines disagree, DynamoDB Local is the reference.
 */
import { QueryCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, ExistsError, InvalidInput } from '../../lib/domain-errors';
import { CHUNK_SIZE, INLINE_LIMIT, chunkPartition, encodeCursor } from '../../lib/store/dynamo-params';
import { checkLevelStore } from '../../lib/store/level-check';
import { LevelStore } from '../../lib/store/level-store';
import type { DynamoStore } from '../../lib/store/dynamo-store';
import { mutate, type Json, type Page, type Partition, type Store } from '../../lib/store/store';
import { batchContract } from './store-contract-batch';
import { startDynamoDbLocal, type DynamoDbLocal } from '../helpers/dynamodb-local';
import { createTestStore } from '../helpers/store';

interface TestStore {
  store: Store;
  /**
   * Raw records a partition keeps beside its items: its chunk items on DynamoDB; on the
   * embedded store (values stored whole), the problems its integrity check finds.
   */
  sideRecords(partition: string): Promise<number>;
  /** Whether large values are split into chunk items (DynamoDB) or stored whole. */
  chunked: boolean;
  /** The DynamoDB store and its server (absent on the embedded store). */
  dynamo?: { store: DynamoStore; endpoint: string };
  close?(): Promise<void>;
}
type StoreFactory = () => Promise<TestStore>;

/** The DynamoDB store on a fresh table at `endpoint` (dynalite when undefined). */
async function dynamoTestStore(endpoint?: string, api: 'lean' | 'sdk' = 'lean'): Promise<TestStore> {
  const t = await createTestStore(endpoint, api);
  return { store: t.store, chunked: true, sideRecords: (p) => chunkItems(t, p), dynamo: { store: t.store, endpoint: t.endpoint } };
}

/** The embedded store in a fresh directory. */
async function levelTestStore(): Promise<TestStore> {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-level-contract-'));
  const store = await LevelStore.open(dir);
  return {
    store,
    chunked: false,
    sideRecords: async () => (await checkLevelStore(store)).problems.length,
    close: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every page of a listing, following cursors; fails on a loop. */
async function allPages<T>(fetch: (cursor?: string) => Promise<Page<T>>): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await fetch(cursor);
    items.push(...page.items);
    cursor = page.cursor;
    if (++pages > 1000) throw new Error('listing does not end');
  } while (cursor);
  return { items, pages };
}

/** Raw count of chunk items of a partition, bypassing the store. */
async function chunkItems(t: { client: DynamoDBClient; table: string }, partition: string): Promise<number> {
  let count = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await t.client.send(
      new QueryCommand({
        TableName: t.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': { S: chunkPartition(partition) } },
        ProjectionExpression: 'sk',
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

/** A JSON value of about `bytes` bytes, with multi-byte characters so chunk cuts land mid-character. */
function bigValue(bytes: number, seed: string): Json {
  const unit = `${seed}-é€😀-0123456789abcdef-`;
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${unit}${i}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 3;
  }
  return { seed, lines };
}

const byteLength = (v: Json) => Buffer.byteLength(JSON.stringify(v));

function storeContract(makeStore: StoreFactory, dynamo: boolean): void {
  let t: TestStore;
  let part: Partition;
  beforeEach(async () => {
    t = await makeStore();
    part = t.store.partition('p');
  });
  afterEach(async () => {
    await t.close?.();
  });
  /** What sideRecords should count: `n` chunk items where values are chunked, else nothing. */
  const chunksOf = (n: number) => (t.chunked ? n : 0);

  describe('get, put, delete', () => {
    it('round-trips JSON values and counts versions from 1', async () => {
      expect(await part.get('a')).toBeUndefined();
      const values: Json[] = [
        { x: 1, nested: { list: [1, 'two', null, true, 2.5] } },
        [1, 2, 3],
        'a string with ünïcödé 😀',
        0,
        -12.75,
        true,
        false,
        null,
        '',
        {},
      ];
      for (const [i, value] of values.entries()) {
        expect(await part.put('a', value)).toBe(i + 1);
        expect(await part.get('a')).toEqual({ key: 'a', value, version: i + 1 });
      }
    });

    it('deletes, reports whether it did, and restarts versions after a delete', async () => {
      await part.put('a', 1);
      await part.put('a', 2);
      expect(await part.delete('a')).toBe(true);
      expect(await part.get('a')).toBeUndefined();
      expect(await part.delete('a')).toBe(false);
      expect(await part.delete('never')).toBe(false);
      expect(await part.put('a', 3)).toBe(1);
    });

    it('ifAbsent: creates once, then ExistsError without changing the value', async () => {
      expect(await part.put('a', 'first', { ifAbsent: true })).toBe(1);
      await expect(part.put('a', 'second', { ifAbsent: true })).rejects.toBeInstanceOf(ExistsError);
      expect(await part.get('a')).toEqual({ key: 'a', value: 'first', version: 1 });
    });

    it('ifVersion: writes on a match, ConflictError on a mismatch or a missing item', async () => {
      await part.put('a', 'v1');
      expect(await part.put('a', 'v2', { ifVersion: 1 })).toBe(2);
      await expect(part.put('a', 'stale', { ifVersion: 1 })).rejects.toBeInstanceOf(ConflictError);
      await expect(part.put('a', 'future', { ifVersion: 3 })).rejects.toBeInstanceOf(ConflictError);
      expect(await part.get('a')).toEqual({ key: 'a', value: 'v2', version: 2 });
      await expect(part.put('missing', 'x', { ifVersion: 1 })).rejects.toBeInstanceOf(ConflictError);
      expect(await part.get('missing')).toBeUndefined();
    });

    it('delete ifVersion: deletes on a match, ConflictError otherwise', async () => {
      await part.put('a', 'v1');
      await part.put('a', 'v2');
      await expect(part.delete('a', { ifVersion: 1 })).rejects.toBeInstanceOf(ConflictError);
      expect((await part.get('a'))?.value).toBe('v2');
      expect(await part.delete('a', { ifVersion: 2 })).toBe(true);
      expect(await part.get('a')).toBeUndefined();
      await expect(part.delete('a', { ifVersion: 2 })).rejects.toBeInstanceOf(ConflictError);
    });

    it('concurrent put(ifAbsent) of one key: exactly one of 20 wins', async () => {
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => part.put('once', { writer: i }, { ifAbsent: true })));
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ExistsError);
        else expect(r.value).toBe(1);
      }
      expect(await part.get('once')).toEqual({ key: 'once', value: { writer: won[0] }, version: 1 });
    });
  });

  describe('keys', () => {
    it('rejects an empty key with InvalidInput on every keyed method', async () => {
      await expect(part.get('')).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.put('', 1)).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.delete('')).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.increment('')).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.batchPut([{ key: '', value: 1 }])).rejects.toBeInstanceOf(InvalidInput);
    });

    it('accepts keys up to 1000 UTF-8 bytes and rejects longer ones with InvalidInput', async () => {
      const max = 'é'.repeat(500); // 1000 bytes, 500 characters
      expect(await part.put(max, 'ok')).toBe(1);
      expect((await part.get(max))?.value).toBe('ok');
      expect((await part.listKeys('é')).items).toEqual([max]);
      const tooLong = `${max}x`;
      await expect(part.get(tooLong)).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.put(tooLong, 1)).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.delete(tooLong)).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.increment(tooLong)).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.put('a'.repeat(1001), 1)).rejects.toBeInstanceOf(InvalidInput);
      expect(await part.delete(max)).toBe(true);
    });

    it('partitions are isolated', async () => {
      const other = t.store.partition('p2');
      const prefixed = t.store.partition('p/');
      await part.put('k', 'in p', { index: { name: 'ix', sort: '1' } });
      await other.put('k', 'in p2', { index: { name: 'ix', sort: '1' } });
      await part.increment('n');
      expect((await part.get('k'))?.value).toBe('in p');
      expect((await other.get('k'))?.value).toBe('in p2');
      expect(await prefixed.get('k')).toBeUndefined();
      expect((await other.list('')).items.map((i) => i.key)).toEqual(['k']);
      expect((await prefixed.list('')).items).toEqual([]);
      expect((await other.queryIndex('ix')).items.map((i) => i.value)).toEqual(['in p2']);
      expect(await other.get('n')).toBeUndefined();
      expect(await other.delete('k')).toBe(true);
      expect((await part.get('k'))?.value).toBe('in p');
      expect((await part.queryIndex('ix')).items.map((i) => i.value)).toEqual(['in p']);
    });
  });

  describe('list and listKeys', () => {
    const keys = Array.from({ length: 23 }, (_, i) => `dir/${String(i).padStart(2, '0')}`);

    beforeEach(async () => {
      // Written out of order; neighbours that must not show up under "dir/".
      for (const key of [...keys].reverse()) await part.put(key, { key });
      await part.put('dir', 'the prefix itself is not under "dir/"');
      await part.put('dis', 'next prefix');
      await part.put('di', 'shorter');
      await t.store.partition('other').put('dir/00', 'other partition');
    });

    it('lists items under a prefix in key order', async () => {
      const page = await part.list('dir/');
      expect(page.cursor).toBeUndefined();
      expect(page.items.map((i) => i.key)).toEqual(keys);
      expect(page.items[0]).toEqual({ key: 'dir/00', value: { key: 'dir/00' }, version: 1 });
      expect((await part.list('')).items.map((i) => i.key)).toEqual(['di', 'dir', ...keys, 'dis']);
      expect((await part.list('nothing')).items).toEqual([]);
    });

    it('pages with a cursor: every item exactly once, in order', async () => {
      for (const limit of [1, 5, 7, 23]) {
        const { items, pages } = await allPages((cursor) => part.list('dir/', { limit, ...(cursor ? { cursor } : {}) }));
        expect(items.map((i) => i.key)).toEqual(keys);
        expect(items.every((i) => i.version === 1)).toBe(true);
        expect(pages).toBeGreaterThanOrEqual(Math.ceil(keys.length / limit));
        expect(pages).toBeLessThanOrEqual(Math.ceil(keys.length / limit) + 1);
      }
      const first = await part.list('dir/', { limit: 5 });
      expect(first.items).toHaveLength(5);
      expect(first.cursor).toEqual(expect.any(String));
    });

    it('listKeys returns keys only, paged the same way', async () => {
      expect(await part.listKeys('dir/')).toEqual({ items: keys });
      const { items } = await allPages((cursor) => part.listKeys('dir/', { limit: 4, ...(cursor ? { cursor } : {}) }));
      expect(items).toEqual(keys);
      expect((await part.listKeys('d')).items).toEqual(['di', 'dir', ...keys, 'dis']);
    });

    it('rejects an invalid cursor with InvalidInput', async () => {
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const bad = [
        'not a cursor!',
        b64([1, 2]),
        b64({}),
        b64({ pk: { S: 'p' } }),
        b64({ pk: 'p', sk: 'dir/03' }),
        // Well formed, but from another partition or outside the prefix.
        encodeCursor({ pk: { S: 'other' }, sk: { S: 'dir/00' } })!,
        encodeCursor({ pk: { S: 'p' }, sk: { S: 'zzz' } })!,
      ];
      for (const cursor of bad) {
        await expect(part.list('dir/', { cursor }), cursor).rejects.toBeInstanceOf(InvalidInput);
        await expect(part.listKeys('dir/', { cursor }), cursor).rejects.toBeInstanceOf(InvalidInput);
        await expect(part.queryIndex('ix', { cursor }), cursor).rejects.toBeInstanceOf(InvalidInput);
      }
      // A real cursor, replayed against another query.
      const listCursor = (await part.list('dir/', { limit: 2 })).cursor!;
      await expect(part.list('dis', { cursor: listCursor })).rejects.toBeInstanceOf(InvalidInput);
      await expect(t.store.partition('other').list('dir/', { cursor: listCursor })).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.queryIndex('ix', { cursor: listCursor })).rejects.toBeInstanceOf(InvalidInput);
      expect((await part.listKeys('dir/', { cursor: listCursor })).items[0]).toBe('dir/02');
      await part.put('dir/00', 'indexed', { index: { name: 'ix', sort: 'm' } });
      await part.put('dir/01', 'indexed', { index: { name: 'ix', sort: 'n' } });
      const indexCursor = (await part.queryIndex('ix', { limit: 1 })).cursor!;
      await expect(part.queryIndex('iy', { cursor: indexCursor })).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.queryIndex('ix', { from: 'n', cursor: indexCursor })).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.queryIndex('ix', { to: 'l', cursor: indexCursor })).rejects.toBeInstanceOf(InvalidInput);
      await expect(part.list('dir/', { cursor: indexCursor })).rejects.toBeInstanceOf(InvalidInput);
      expect((await part.queryIndex('ix', { to: 'n', cursor: indexCursor })).items.map((i) => i.key)).toEqual(['dir/01']);
    });
  });

  describe('sparse index', () => {
    it('orders by sort value and honours inclusive from/to bounds', async () => {
      const sorts = ['2024-05', '2024-01', '2024-03', '2024-02', '2024-04'];
      for (const [i, sort] of sorts.entries()) await part.put(`k${i}`, { sort }, { index: { name: 'exp', sort } });
      await part.put('plain', 'not indexed');
      await part.put('elsewhere', 'other index', { index: { name: 'other', sort: '2024-03' } });

      const all = await part.queryIndex<{ sort: string }>('exp');
      expect(all.cursor).toBeUndefined();
      expect(all.items.map((i) => i.value.sort)).toEqual(['2024-01', '2024-02', '2024-03', '2024-04', '2024-05']);
      expect(all.items[0]).toEqual({ key: 'k1', value: { sort: '2024-01' }, version: 1 });

      const sortsOf = async (range: Parameters<Partition['queryIndex']>[1]) =>
        (await part.queryIndex<{ sort: string }>('exp', range)).items.map((i) => i.value.sort);
      expect(await sortsOf({ from: '2024-02', to: '2024-04' })).toEqual(['2024-02', '2024-03', '2024-04']);
      expect(await sortsOf({ from: '2024-04' })).toEqual(['2024-04', '2024-05']);
      expect(await sortsOf({ to: '2024-02' })).toEqual(['2024-01', '2024-02']);
      expect(await sortsOf({ from: '2024-02-15', to: '2024-03-15' })).toEqual(['2024-03']);
      expect(await sortsOf({ from: '2025' })).toEqual([]);
      expect((await part.queryIndex('missing')).items).toEqual([]);

      const { items } = await allPages((cursor) => part.queryIndex('exp', { limit: 2, ...(cursor ? { cursor } : {}) }));
      expect(items.map((i) => i.key)).toEqual(['k1', 'k3', 'k2', 'k4', 'k0']);
      const bounded = await allPages((cursor) =>
        part.queryIndex('exp', { from: '2024-02', to: '2024-04', limit: 1, ...(cursor ? { cursor } : {}) }),
      );
      expect(bounded.items.map((i) => i.key)).toEqual(['k3', 'k2', 'k4']);
    });

    it('keeps the entry on a put without index, moves it on a new sort, drops it on index: null', async () => {
      await part.put('a', 1, { index: { name: 'exp', sort: '1' } });
      await part.put('b', 2, { index: { name: 'exp', sort: '2' } });
      await part.put('a', 10);
      expect((await part.queryIndex('exp')).items).toEqual([
        { key: 'a', value: 10, version: 2 },
        { key: 'b', value: 2, version: 1 },
      ]);
      await part.put('a', 11, { index: { name: 'exp', sort: '3' } });
      expect((await part.queryIndex('exp')).items.map((i) => i.key)).toEqual(['b', 'a']);
      await part.put('a', 12, { index: { name: 'renamed', sort: '3' } });
      expect((await part.queryIndex('exp')).items.map((i) => i.key)).toEqual(['b']);
      expect((await part.queryIndex('renamed')).items.map((i) => i.key)).toEqual(['a']);
      await part.put('a', 13, { index: null });
      expect((await part.queryIndex('renamed')).items).toEqual([]);
      expect(await part.get('a')).toEqual({ key: 'a', value: 13, version: 5 });
      await part.delete('b');
      expect((await part.queryIndex('exp')).items).toEqual([]);
    });
  });

  describe('batches', () => {
    it('batchPut and batchDelete more than 25 items', async () => {
      const items = Array.from({ length: 60 }, (_, i) => ({
        key: `b/${String(i).padStart(3, '0')}`,
        value: { i, text: 'x'.repeat(200) } as Json,
        ...(i % 3 === 0 ? { index: { name: 'third', sort: String(1000 - i).padStart(4, '0') } } : {}),
      }));
      await part.batchPut(items);
      const listed = await allPages((cursor) => part.list('b/', { limit: 25, ...(cursor ? { cursor } : {}) }));
      expect(listed.items).toEqual(items.map(({ key, value }) => ({ key, value, version: 1 })));
      const indexed = await part.queryIndex('third');
      expect(indexed.items.map((i) => i.key)).toEqual(
        items
          .filter((_, i) => i % 3 === 0)
          .map((i) => i.key)
          .reverse(),
      );

      await part.batchDelete([...items.slice(0, 50).map((i) => i.key), 'b/never-there']);
      expect((await part.listKeys('b/')).items).toEqual(items.slice(50).map((i) => i.key));
      await part.batchDelete(items.slice(50).map((i) => i.key));
      expect((await part.list('b/')).items).toEqual([]);
      expect((await part.queryIndex('third')).items).toEqual([]);
      await part.batchPut([]);
      await part.batchDelete([]);
    });

    // Batch writes are for small, unversioned records (see store.ts): large values are refused.

    it('batchPut refuses a value too large for one item', async () => {
      await expect(part.batchPut([{ key: 'big', value: 'x'.repeat(INLINE_LIMIT + 1) }])).rejects.toBeInstanceOf(InvalidInput);
      expect(await part.get('big')).toBeUndefined();
    });
  });

  describe('increment', () => {
    it('is atomic under 50 concurrent calls', async () => {
      const got = await Promise.all(Array.from({ length: 50 }, () => part.increment('counter')));
      expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect((await part.get('counter'))?.value).toBe(50);
    });

    it('adds any step, negative included, starting from 0', async () => {
      expect(await part.increment('c', 5)).toBe(5);
      expect(await part.increment('c', -2)).toBe(3);
      expect(await part.increment('c')).toBe(4);
      expect(await part.get('c')).toEqual({ key: 'c', value: 4, version: 3 });
    });
  });

  describe('mutate', () => {
    it('loses no update under 20 concurrent incrementing writers', async () => {
      const add = () => mutate<{ n: number }>(part, 'm', (cur) => ({ n: (cur?.n ?? 0) + 1 }), { attempts: 100 });
      const results = await Promise.all(Array.from({ length: 20 }, add));
      expect(results.map((r) => r?.n).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(await part.get('m')).toEqual({ key: 'm', value: { n: 20 }, version: 20 });
    });

    it('with the default attempts, every write either lands or fails loudly', async () => {
      const add = () => mutate<{ n: number }>(part, 'm', (cur) => ({ n: (cur?.n ?? 0) + 1 }));
      const results = await Promise.allSettled(Array.from({ length: 20 }, add));
      const landed = results.filter((r) => r.status === 'fulfilled').length;
      for (const r of results) {
        if (r.status === 'rejected') expect(r.reason).toSatisfy((e: unknown) => e instanceof ConflictError || e instanceof ExistsError);
      }
      expect((await part.get<{ n: number }>('m'))?.value.n).toBe(landed);
    });

    it('writes nothing when the change returns undefined, and maintains the index', async () => {
      expect(await mutate(part, 'x', () => undefined)).toBeUndefined();
      expect(await part.get('x')).toBeUndefined();
      const index = (v: { at: string }) => ({ name: 'at', sort: v.at });
      await mutate<{ at: string }>(part, 'x', () => ({ at: '2' }), { index });
      await mutate<{ at: string }>(part, 'y', () => ({ at: '1' }), { index });
      expect((await part.queryIndex('at')).items.map((i) => i.key)).toEqual(['y', 'x']);
    });
  });

  batchContract(() => t, dynamo);

  describe('values larger than one item', () => {
    it('round-trip through chunks; a small replacement and a delete remove the chunks', async () => {
      const big = bigValue(1_500_000, 'one');
      const size = byteLength(big);
      expect(size).toBeGreaterThan(1_500_000);
      const chunks = Math.ceil(size / CHUNK_SIZE);

      expect(await part.put('big', big, { index: { name: 'size', sort: 'L' } })).toBe(1);
      expect(await t.sideRecords('p')).toBe(chunksOf(chunks));
      expect(await part.get('big')).toEqual({ key: 'big', value: big, version: 1 });
      expect((await part.list('')).items).toEqual([{ key: 'big', value: big, version: 1 }]);
      expect((await part.listKeys('')).items).toEqual(['big']);
      expect((await part.queryIndex('size')).items).toEqual([{ key: 'big', value: big, version: 1 }]);

      // A conditional write that loses leaves the stored value and its chunks alone.
      await expect(part.put('big', bigValue(700_000, 'loser'), { ifAbsent: true })).rejects.toBeInstanceOf(ExistsError);
      await expect(part.put('big', bigValue(700_000, 'loser'), { ifVersion: 7 })).rejects.toBeInstanceOf(ConflictError);
      expect(await t.sideRecords('p')).toBe(chunksOf(chunks));
      expect((await part.get('big'))?.value).toEqual(big);

      // Big replaced by big: only the new generation's chunks remain.
      const big2 = bigValue(700_000, 'two');
      expect(await part.put('big', big2)).toBe(2);
      expect(await t.sideRecords('p')).toBe(chunksOf(Math.ceil(byteLength(big2) / CHUNK_SIZE)));
      expect((await part.get('big'))?.value).toEqual(big2);

      // Big replaced by small: inline again, no chunks left.
      expect(await part.put('big', { small: true })).toBe(3);
      expect(await part.get('big')).toEqual({ key: 'big', value: { small: true }, version: 3 });
      expect(await t.sideRecords('p')).toBe(0);

      // Small to big again, then delete: no chunks left.
      expect(await part.put('big', big2, { ifVersion: 3 })).toBe(4);
      expect(await t.sideRecords('p')).toBe(chunksOf(Math.ceil(byteLength(big2) / CHUNK_SIZE)));
      expect(await part.delete('big')).toBe(true);
      expect(await part.get('big')).toBeUndefined();
      expect(await t.sideRecords('p')).toBe(0);
    });

    it('listings past the 1 MB Query page still see every item once', async () => {
      const value = 'z'.repeat(INLINE_LIMIT - 2); // inline, but only ~3 fit in one Query page
      for (let i = 0; i < 7; i++) await part.put(`l/${i}`, value);
      await part.put('l/big', bigValue(400_000, 'chunked'));
      const { items, pages } = await allPages((cursor) => part.list('l/', cursor ? { cursor } : {}));
      expect(items.map((i) => i.key)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `l/${i}`).concat('l/big'));
      expect(items.slice(0, 7).every((i) => i.value === value)).toBe(true);
      expect(pages).toBeGreaterThan(1);
      // The 1 MB applies to the items read, not to what is returned: listKeys pages too.
      const keys = await allPages((cursor) => part.listKeys('l/', cursor ? { cursor } : {}));
      expect(keys.items).toEqual(items.map((i) => i.key));
    });

    it('a value just over the inline limit and a longest key work together', async () => {
      const key = 'k'.repeat(1000);
      const value = 'x'.repeat(INLINE_LIMIT); // JSON text is INLINE_LIMIT + 2 bytes
      expect(await part.put(key, value)).toBe(1);
      expect(await t.sideRecords('p')).toBe(chunksOf(2));
      expect((await part.get(key))?.value).toBe(value);
      expect(await part.delete(key)).toBe(true);
      expect(await t.sideRecords('p')).toBe(0);
      const inline = 'y'.repeat(INLINE_LIMIT - 2);
      expect(await part.put(key, inline)).toBe(1);
      expect(await t.sideRecords('p')).toBe(0);
      expect((await part.get(key))?.value).toBe(inline);
    });
  });
}

let local: DynamoDbLocal | undefined;
let localStarting: Promise<DynamoDbLocal> | undefined;

// The JVM boots while the dynalite run goes on; a failure surfaces in the DynamoDB Local block.
beforeAll(() => {
  localStarting = startDynamoDbLocal();
  localStarting.catch(() => {});
});

afterAll(async () => {
  await (local ?? (await localStarting?.catch(() => undefined)))?.close();
});

const backends: { backend: string; factory: StoreFactory; dynamo: boolean; start?: () => Promise<void> }[] = [
  { backend: 'embedded LevelDB store', factory: levelTestStore, dynamo: false },
  { backend: 'dynalite (lean client)', factory: () => dynamoTestStore(), dynamo: true },
  { backend: 'dynalite (SDK client)', factory: () => dynamoTestStore(undefined, 'sdk'), dynamo: true },
  {
    backend: 'DynamoDB Local (lean client)',
    dynamo: true,
    start: async () => {
      local = await localStarting;
    },
    factory: () => {
      if (!local) throw new Error('DynamoDB Local is not running');
      return dynamoTestStore(local.endpoint);
    },
  },
];

describe.each(backends)('store contract on $backend', ({ factory, dynamo, start }) => {
  beforeAll(async () => {
    await start?.();
  }, 90_000);
  storeContract(factory, dynamo);
});
