/**
 * TransactWriteItems on the embedded dynalite beyond the storage contract (which compares its
 * answers with DynamoDB Local's): no interleaving with dynalite's own single-item writes, the
 * validations of the single-item requests, nothing written when an update fails after the
 * conditions held, index entries, and a transaction kept on disk across a restart.
 */
import {
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded';
import { ensureTable } from '../../lib/store/setup';
import { INDEX_NAME } from '../../lib/store/table';
import { dynamoClient } from '../helpers/store';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function server(path?: string): Promise<{ dynamo: EmbeddedDynamo; client: DynamoDBClient }> {
  const dynamo = await startEmbeddedDynamo(path ? { path } : {});
  const client = dynamoClient(dynamo.endpoint);
  cleanup.push(async () => {
    client.destroy();
    await dynamo.close();
  });
  return { dynamo, client };
}

const TABLE = 'latchkey';
const key = (sk: string) => ({ pk: { S: 'p' }, sk: { S: sk } });
const transact = (client: DynamoDBClient, items: TransactWriteItem[]) =>
  client.send(new TransactWriteItemsCommand({ TransactItems: items }));
const get = async (client: DynamoDBClient, sk: string) =>
  (await client.send(new GetItemCommand({ TableName: TABLE, Key: key(sk), ConsistentRead: true }))).Item;

describe('TransactWriteItems on dynalite', () => {
  it('never interleaves with single-item writes of the same item: no increment is lost', async () => {
    const { client } = await server();
    await ensureTable(client, TABLE);
    const add = { TableName: TABLE, Key: key('n'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } };
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2
          ? client.send(new UpdateItemCommand(add))
          : transact(client, [{ Update: add }, { Put: { TableName: TABLE, Item: { ...key(`other/${i}`), i: { N: String(i) } } } }]),
      ),
    );
    expect((await get(client, 'n'))?.n).toEqual({ N: '200' });
  });

  it('answers the single-item validations, and writes nothing when an update fails after the conditions held', async () => {
    const { client } = await server();
    await ensureTable(client, TABLE);
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('s'), n: { S: 'not a number' } } }));
    const put: TransactWriteItem = { Put: { TableName: TABLE, Item: { ...key('first'), v: { S: 'x' } } } };
    const refused = async (item: TransactWriteItem, message: RegExp) => {
      await expect(transact(client, [put, item])).rejects.toThrow(message);
      expect(await get(client, 'first')).toBeUndefined();
    };
    await refused({ Put: { TableName: TABLE, Item: { pk: { S: 'p' } } } }, /key|missing/i);
    await refused({ Update: { TableName: TABLE, Key: key('u'), UpdateExpression: 'SET = nonsense' } }, /UpdateExpression/);
    await refused({ Delete: { TableName: 'no-such-table', Key: key('d') } }, /not found/i);
    await refused(
      { Update: { TableName: TABLE, Key: key('s'), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': { N: '1' } } } },
      /incorrect data type|Type mismatch/,
    );
    expect((await get(client, 's'))?.n).toEqual({ S: 'not a number' });
  });

  it('honours ClientRequestToken as DynamoDB does, and refuses by name what it does not honour', async () => {
    const { client } = await server();
    await ensureTable(client, TABLE);
    const put = (v: string): TransactWriteItem[] => [{ Put: { TableName: TABLE, Item: { ...key('t'), v: { S: v } } } }];
    const send = (items: TransactWriteItem[], extra: object) =>
      client.send(new TransactWriteItemsCommand({ TransactItems: items, ...extra }));
    await expect(send(put('x'), { ReturnConsumedCapacity: 'TOTAL' })).rejects.toThrow(/ReturnConsumedCapacity other than NONE/);
    await expect(send(put('x'), { ReturnItemCollectionMetrics: 'SIZE' })).rejects.toThrow(/ReturnItemCollectionMetrics other than NONE/);
    expect(await get(client, 't')).toBeUndefined();
    await send(put('x'), { ClientRequestToken: 'token-1' });
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('t'), v: { S: 'changed' } } }));
    // A repeat of a request that succeeded answers success and writes nothing again.
    await send(put('x'), { ClientRequestToken: 'token-1' });
    expect((await get(client, 't'))?.v).toEqual({ S: 'changed' });
    await expect(send(put('y'), { ClientRequestToken: 'token-1' })).rejects.toThrow(/same client token/);
    await send(put('z'), { ClientRequestToken: 'token-2', ReturnConsumedCapacity: 'NONE' });
    expect((await get(client, 't'))?.v).toEqual({ S: 'z' });
  });

  it('returns the old item with a failed condition when asked (ReturnValuesOnConditionCheckFailure)', async () => {
    const { client } = await server();
    await ensureTable(client, TABLE);
    await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...key('a'), ver: { N: '2' } } }));
    const failed = await transact(client, [
      {
        ConditionCheck: {
          TableName: TABLE,
          Key: key('a'),
          ConditionExpression: '#v = :v',
          ExpressionAttributeNames: { '#v': 'ver' },
          ExpressionAttributeValues: { ':v': { N: '1' } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
      { Put: { TableName: TABLE, Item: key('b') } },
    ]).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TransactionCanceledException);
    expect((failed as TransactionCanceledException).CancellationReasons).toEqual([
      { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed', Item: { ...key('a'), ver: { N: '2' } } },
      { Code: 'None' },
    ]);
    expect(await get(client, 'b')).toBeUndefined();
  });

  it('keeps a transaction, its items and their index entries, on disk across a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'latchkey-dynalite-tx-'));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    const first = await server(dir);
    await ensureTable(first.client, TABLE);
    const indexed = (sk: string, sort: string) => ({ ...key(sk), ipk: { S: 'p\u0001ix' }, isk: { S: sort } });
    await first.client.send(new PutItemCommand({ TableName: TABLE, Item: indexed('moved', '1') }));
    await transact(first.client, [
      { Put: { TableName: TABLE, Item: indexed('new', '2') } },
      {
        Update: { TableName: TABLE, Key: key('moved'), UpdateExpression: 'SET isk = :s', ExpressionAttributeValues: { ':s': { S: '3' } } },
      },
    ]);
    cleanup.pop();
    first.client.destroy();
    await first.dynamo.close();
    const second = await server(dir);
    const out = await second.client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: INDEX_NAME,
        KeyConditionExpression: 'ipk = :ipk',
        ExpressionAttributeValues: { ':ipk': { S: 'p\u0001ix' } },
      }),
    );
    expect(out.Items?.map((i) => [i.sk?.S, i.isk?.S])).toEqual([
      ['new', '2'],
      ['moved', '3'],
    ]);
  });
});
