/**
 * Strongly consistent batch reads (BatchGetItem) for the DynamoDB store: getMany, and the
 * version reads of a transaction. DynamoDB takes 100 keys a request, refuses a key twice in
 * one, and may leave keys unprocessed (throttling, or more than 16 MB in one answer): those
 * are asked again, with back-off while no progress is made.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoApi } from './dynamo-api';
import type { ItemRef, Json, StoredItem } from './store';
import { checkKey, refId } from './transact-check';

type Item = Record<string, AttributeValue>;
export const BATCH_GET_KEYS = 100;
/** Requests in a row that return nothing before giving up. */
const STALLED_ATTEMPTS = 8;

const keyOf = (r: ItemRef): Item => ({ pk: { S: r.partition }, sk: { S: r.key } });
const idOf = (item: Item) => refId({ partition: item.pk?.S ?? '', key: item.sk?.S ?? '' });

/** Every item of `keys` (distinct) that exists, by refId. */
async function readKeys(api: DynamoApi, table: string, keys: Item[], projection?: string): Promise<Map<string, Item>> {
  const found = new Map<string, Item>();
  let pending = keys;
  for (let stalled = 0; pending.length;) {
    if (stalled >= STALLED_ATTEMPTS) throw new Error('batch read: keys left unprocessed after retries');
    if (stalled > 0) await new Promise((r) => setTimeout(r, Math.random() * Math.min(1000, 20 * 2 ** stalled)));
    const out = await api.batchGetItem({
      RequestItems: { [table]: { Keys: pending, ConsistentRead: true, ...(projection ? { ProjectionExpression: projection } : {}) } },
    });
    const items = out.Responses?.[table] ?? [];
    for (const item of items) found.set(idOf(item), item);
    const left = out.UnprocessedKeys?.[table]?.Keys ?? [];
    stalled = left.length < pending.length ? 0 : stalled + 1;
    pending = left;
  }
  return found;
}

/** The raw items named by `refs` (duplicates allowed), by refId; absent ones are missing. */
export async function batchGetRaw(
  api: DynamoApi,
  table: string,
  refs: readonly ItemRef[],
  projection?: string,
): Promise<Map<string, Item>> {
  const distinct = new Map<string, Item>();
  for (const r of refs) {
    checkKey(r.key);
    distinct.set(refId(r), keyOf(r));
  }
  const keys = [...distinct.values()];
  const found = new Map<string, Item>();
  const requests: Promise<Map<string, Item>>[] = [];
  for (let i = 0; i < keys.length; i += BATCH_GET_KEYS) requests.push(readKeys(api, table, keys.slice(i, i + BATCH_GET_KEYS), projection));
  for (const part of await Promise.all(requests)) for (const [id, item] of part) found.set(id, item);
  return found;
}

/**
 * getMany: the items in the order asked. `decode` turns a head item into its value, reading the
 * chunks of a large value (only those items cost further reads).
 */
export async function batchGet<T = Json>(
  api: DynamoApi,
  table: string,
  refs: readonly ItemRef[],
  decode: (partition: string, item: Item) => Promise<StoredItem<T>>,
): Promise<(StoredItem<T> | undefined)[]> {
  const found = await batchGetRaw(api, table, refs);
  const decoded = new Map<string, Promise<StoredItem<T>>>();
  for (const [id, item] of found) decoded.set(id, decode(item.pk?.S ?? '', item));
  return Promise.all(refs.map((r) => decoded.get(refId(r))));
}
