/**
 * bench/round-trips.ts's counting: the interval merging on synthetic calls, and the bench's core
 * on one real request (the packaged sys function, dynalite behind the proxy with no delay).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpEvent } from '../helpers/apigw';
import { startInstance, writeRunner, type Instance } from '../../bench/_fn-runner';
import { sequentialRoundTrips, steps } from '../../bench/_round-trips';
import { describeCall, startStoreProxy, type StoreProxy } from '../../bench/_store-proxy';
import { buildFunctions, bundle, initialisedTable } from '../../bench/bundle';
import { measure } from '../../bench/round-trips';

const call = (start: number, end: number, op = 'GetItem') => ({ start, end, op });

describe('sequential round trips', () => {
  it('counts calls one after another once each', () => {
    expect(sequentialRoundTrips([call(0, 5), call(6, 11), call(12, 17)])).toBe(3);
  });

  it('counts overlapping calls once, in any order given', () => {
    expect(sequentialRoundTrips([call(1, 6), call(0, 5), call(2, 7), call(8, 13)])).toBe(2);
  });

  it('chains overlaps: a call overlapping only the last of a step joins it', () => {
    expect(steps([call(0, 5, 'a'), call(4, 9, 'b'), call(8, 12, 'c'), call(12, 15, 'd')]).map((s) => s.map((c) => c.op))).toEqual([
      ['a', 'b', 'c'],
      ['d'],
    ]);
  });

  it('does not merge a call that starts as the previous one ends', () => {
    expect(sequentialRoundTrips([call(0, 5), call(5, 10)])).toBe(2);
  });

  it('is zero without calls', () => {
    expect(sequentialRoundTrips([])).toBe(0);
  });
});

describe('store call keys', () => {
  it('names the key of an item call, the condition of a query, the items of a batch and a transaction', () => {
    expect(describeCall('GetItem', JSON.stringify({ Key: { pk: { S: 'sys' }, sk: { S: 'policy/a' } } })).keys).toEqual(['sys | policy/a']);
    const query = {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': { S: 'p' }, ':prefix': { S: 'x/' } },
    };
    expect(describeCall('Query', JSON.stringify(query)).keys).toEqual(['pk = "p" AND begins_with(sk, "x/")']);
    const batch = {
      RequestItems: {
        t: {
          Keys: [
            { pk: { S: 'a' }, sk: { S: '1' } },
            { pk: { S: 'b' }, sk: { S: '2' } },
          ],
        },
      },
    };
    expect(describeCall('BatchGetItem', JSON.stringify(batch)).keys).toEqual(['a | 1', 'b | 2']);
    const tx = { TransactItems: [{ Put: { Item: { pk: { S: 'a' }, sk: { S: '1' } }, ConditionExpression: 'attribute_not_exists(pk)' } }] };
    expect(describeCall('TransactWriteItems', JSON.stringify(tx)).keys).toEqual(['Put a | 1 if attribute_not_exists(pk)']);
  });
});

describe('the bench core on the packaged sys function', () => {
  let dir: string;
  let store: StoreProxy;
  let sys: Instance;
  let root: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'latchkey-test-round-trips-'));
    store = await startStoreProxy(0);
    const init = await initialisedTable(dir, store.endpoint);
    root = init.rootToken;
    const file = await bundle('sys', buildFunctions().sys!, join(dir, 'out'));
    sys = await startInstance(await writeRunner(dir), file, { ...init.env, AUTH_CACHE_MS: '0' });
  });

  afterAll(async () => {
    sys?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('records the calls of each request, the token read first, with the auth cache off', async () => {
    const request = {
      label: 'lookup-self',
      fn: 'sys',
      target: { off: 2, on: 0 },
      event: () => httpEvent('GET', '/v1/auth/token/lookup-self', { headers: { 'x-vault-token': root } }),
    };
    const samples = await measure(sys, store, request, 3, 1);
    expect(samples).toHaveLength(3);
    for (const s of samples) {
      expect(s.calls[0]).toMatchObject({ op: 'GetItem', status: 200 });
      expect(s.calls[0]!.keys[0]).toMatch(/^sys \| token\//);
      for (const c of s.calls) expect(c.end).toBeGreaterThanOrEqual(c.start);
      expect(sequentialRoundTrips(s.calls)).toBeGreaterThan(0);
      expect(sequentialRoundTrips(s.calls)).toBeLessThanOrEqual(s.calls.length);
    }
  });
});
