/**
 * A data directory written by the dynalite store (DATA_DIR/db) is copied once into the embedded
 * store on its first start: every item of the table, with its version, counter and index entry
 * (chunked values read whole through the DynamoDB store), then a marker. Until the marker is
 * written nothing is served from the embedded store, so an interrupted copy is simply redone.
 * DATA_DIR/db is left as it was (LOCAL_STORE=dynalite still opens it; writes made there later
 * are not carried over).
 */
import {
  DescribeTableCommand,
  DynamoDBClient,
  ScanCommand,
  type AttributeValue,
  ResourceNotFoundException,
} from '@aws-sdk/client-dynamodb';
import { ClassicLevel } from 'classic-level';
import { existsSync } from 'node:fs';
import { DynamoStore } from './dynamo-store';
import { chunkPartition, indexPartition } from './dynamo-params';
import { startEmbeddedDynamo } from './embedded';
import type { ItemRecord } from './level-keys';
import type { LevelStore } from './level-store';
import { sdkDynamoApi } from './sdk-api';

/** The embedded store's record of where its data came from. */
export const ORIGIN = 'origin';
const BATCH_BYTES = 4 * 1024 * 1024;

export type Origin = { from: 'new' } | { from: 'dynalite'; items: number; at: string };

/**
 * Brings `store` up to date with the dynalite data under `dbDir` when that was never done;
 * returns the number of items copied (undefined when there was nothing to do).
 */
export async function migrateFromDynalite(store: LevelStore, dbDir: string, table: string): Promise<number | undefined> {
  if (store.getMeta(ORIGIN) !== undefined) return undefined;
  if (!existsSync(dbDir)) {
    await store.setMeta(ORIGIN, JSON.stringify({ from: 'new' } satisfies Origin));
    return undefined;
  }
  let copied: number;
  try {
    copied = await copyTable(store, dbDir, table);
  } catch (e) {
    throw new Error(
      `${dbDir} holds data of the dynalite store and could not be copied into the embedded store (${e instanceof Error ? e.message : String(e)}). ` +
        'Fix the cause and start again (the copy starts over), or keep the dynalite store with LOCAL_STORE=dynalite.',
      { cause: e },
    );
  }
  await store.setMeta(ORIGIN, JSON.stringify({ from: 'dynalite', items: copied, at: new Date().toISOString() } satisfies Origin));
  return copied;
}

/** Opens and closes the dynalite LevelDB, so that a locked or broken one is an error here (dynalite would throw it uncaught). */
async function probe(dbDir: string): Promise<void> {
  const db = new ClassicLevel(dbDir, { createIfMissing: false });
  try {
    await db.open();
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(cause?.code === 'LEVEL_LOCKED' ? 'it is in use by another process' : (cause?.message ?? String(e)), { cause: e });
  }
  await db.close();
}

/** Copies the table out of the dynalite data under `dbDir` (served by a dynalite of its own meanwhile); a missing table copies nothing. */
async function copyTable(store: LevelStore, dbDir: string, table: string): Promise<number> {
  await probe(dbDir);
  const server = await startEmbeddedDynamo({ path: dbDir });
  const client = new DynamoDBClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    if (!(await tableExists(client, table))) return 0;
    return await copyItems(store, client, table);
  } finally {
    client.destroy();
    await server.close();
  }
}

async function tableExists(client: DynamoDBClient, table: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: table }));
    return true;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return false;
    throw e;
  }
}

/** Scans the whole table, consistently, page by page; returns the number of items copied. */
async function copyItems(store: LevelStore, client: DynamoDBClient, table: string): Promise<number> {
  const dynamo = new DynamoStore(sdkDynamoApi(client), table);
  let copied = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await client.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    copied += await importPage(store, dynamo, out.Items ?? []);
    start = out.LastEvaluatedKey;
  } while (start);
  return copied;
}

/** Imports one scanned page's items (chunks skipped) in writes of about BATCH_BYTES each; returns how many. */
async function importPage(store: LevelStore, dynamo: DynamoStore, items: Record<string, AttributeValue>[]): Promise<number> {
  let copied = 0;
  let batch: Parameters<LevelStore['importRecords']>[0] = [];
  let bytes = 0;
  for (const item of items) {
    const one = await recordOf(dynamo, item);
    if (!one) continue;
    batch.push(one);
    bytes += one.key.length + (one.record.v?.length ?? 0);
    if (bytes >= BATCH_BYTES) {
      await store.importRecords(batch);
      copied += batch.length;
      batch = [];
      bytes = 0;
    }
  }
  await store.importRecords(batch);
  return copied + batch.length;
}

/** The embedded store's record of one raw DynamoDB item; undefined for a chunk item. */
async function recordOf(
  dynamo: DynamoStore,
  item: Record<string, AttributeValue>,
): Promise<{ partition: string; key: string; record: ItemRecord } | undefined> {
  const partition = item.pk?.S;
  const key = item.sk?.S;
  if (partition === undefined || key === undefined) throw new Error('an item without its key');
  if (partition.endsWith(chunkPartition(''))) return undefined;
  const record: ItemRecord = { ver: Number(item.ver?.N ?? 1) };
  if (item.n?.N !== undefined) record.n = Number(item.n.N);
  if (item.v?.S !== undefined) record.v = item.v.S;
  else if (item.gen?.S) {
    const whole = await dynamo.partition(partition).get(key);
    if (!whole) throw new Error(`item ${JSON.stringify(key)} vanished during the copy`);
    record.v = JSON.stringify(whole.value);
  }
  const ipk = item.ipk?.S;
  if (ipk !== undefined && item.isk?.S !== undefined && ipk.startsWith(indexPartition(partition, ''))) {
    record.ix = [ipk.slice(indexPartition(partition, '').length), item.isk.S];
  }
  return { partition, key, record };
}
