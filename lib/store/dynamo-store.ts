/**
 * The DynamoDB implementation of the store. The only module that sends storage requests.
 */
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import { ConditionFailed, type DynamoApi } from './dynamo-api';
import { ConflictError, ExistsError, InvalidInput } from '../domain-errors';
import { batchGet } from './dynamo-batch-get';
import * as P from './dynamo-params';
import { dynamoTransact } from './dynamo-transact';
import { checkKey } from './transact-check';
import type {
  DeleteOptions,
  IndexRange,
  ItemRef,
  Json,
  ListOptions,
  Page,
  Partition,
  PutOptions,
  Store,
  StoredItem,
  TransactWrite,
} from './store';

type Item = Record<string, AttributeValue>;

export class DynamoStore implements Store {
  /** TransactWriteItems. */
  readonly atomicTransact = true;

  constructor(
    readonly api: DynamoApi,
    readonly table: string,
  ) {}

  partition(name: string): Partition {
    return new DynamoPartition(this.api, this.table, name);
  }

  getMany<T = Json>(refs: readonly ItemRef[]): Promise<(StoredItem<T> | undefined)[]> {
    return batchGet<T>(this.api, this.table, refs, (partition, item) =>
      new DynamoPartition(this.api, this.table, partition).decode<T>(item),
    );
  }

  transact(writes: readonly TransactWrite[]): Promise<number[]> {
    return dynamoTransact(
      {
        api: this.api,
        table: this.table,
        dropChunks: (partition, key, gen) => new DynamoPartition(this.api, this.table, partition).deleteChunks(key, gen),
      },
      writes,
    );
  }
}

function conditionFailed(e: unknown): boolean {
  return e instanceof ConditionFailed;
}

class DynamoPartition implements Partition {
  constructor(
    private readonly api: DynamoApi,
    private readonly table: string,
    readonly name: string,
  ) {}

  async get<T = Json>(key: string): Promise<StoredItem<T> | undefined> {
    checkKey(key);
    const out = await this.api.getItem(P.getParams(this.table, this.name, key));
    return out.Item ? this.decode<T>(out.Item) : undefined;
  }

  async put(key: string, value: Json, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const text = JSON.stringify(value);
    let write: P.HeadWrite;
    if (Buffer.byteLength(text) <= P.INLINE_LIMIT) {
      write = { inline: text };
    } else {
      // Write-ahead: chunks under a fresh generation first, then the head that points at them.
      const gen = randomBytes(8).toString('hex');
      const count = await this.writeChunks(key, gen, text);
      write = { chunks: { count, gen } };
    }
    try {
      const out = await this.api.updateItem(P.putParams(this.table, this.name, key, { ...write, ...options }));
      const old = out.Attributes;
      if (old?.gen?.S && old.gen.S !== write.chunks?.gen) await this.deleteChunks(key, old.gen.S);
      return Number(old?.ver?.N ?? 0) + 1;
    } catch (e) {
      if (write.chunks) await this.deleteChunks(key, write.chunks.gen);
      if (conditionFailed(e)) throw options.ifAbsent ? new ExistsError() : new ConflictError();
      throw e;
    }
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<boolean> {
    checkKey(key);
    try {
      const out = await this.api.deleteItem(P.deleteParams(this.table, this.name, key, options.ifVersion));
      if (out.Attributes?.gen?.S) await this.deleteChunks(key, out.Attributes.gen.S);
      return out.Attributes !== undefined;
    } catch (e) {
      if (conditionFailed(e)) throw new ConflictError();
      throw e;
    }
  }

  /** One page of the items under `prefix` (keys only when `keysOnly`). */
  private queryPrefix(prefix: string, options: ListOptions, keysOnly: boolean) {
    const cursor = P.startKeyOf(options.cursor, (k) => P.isPrefixStartKey(k, this.name, prefix));
    return this.api.query(P.prefixQueryParams(this.table, this.name, prefix, P.pageSize(options), cursor, keysOnly));
  }

  async list<T = Json>(prefix: string, options: ListOptions = {}): Promise<Page<StoredItem<T>>> {
    const out = await this.queryPrefix(prefix, options, false);
    const items = await Promise.all((out.Items ?? []).map((i) => this.decode<T>(i)));
    return page(items, out.LastEvaluatedKey);
  }

  async listKeys(prefix: string, options: ListOptions = {}): Promise<Page<string>> {
    const out = await this.queryPrefix(prefix, options, true);
    return page(
      (out.Items ?? []).map((i) => i.sk?.S ?? ''),
      out.LastEvaluatedKey,
    );
  }

  async queryIndex<T = Json>(name: string, range: IndexRange = {}): Promise<Page<StoredItem<T>>> {
    const ipk = P.indexPartition(this.name, name);
    const start = P.startKeyOf(range.cursor, (k) => P.isIndexStartKey(k, this.name, ipk, range));
    const out = await this.api.query(P.indexQueryParams(this.table, ipk, range, P.pageSize(range), start));
    const items = await Promise.all((out.Items ?? []).map((i) => this.decode<T>(i)));
    return page(items, out.LastEvaluatedKey);
  }

  async batchPut(items: { key: string; value: Json; index?: { name: string; sort: string } }[]): Promise<void> {
    const requests: WriteRequest[] = items.map(({ key, value, index }) => {
      checkKey(key);
      const text = JSON.stringify(value);
      if (Buffer.byteLength(text) > P.INLINE_LIMIT) throw new InvalidInput('value too large for a batch write');
      const item: Item = { pk: { S: this.name }, sk: { S: key }, v: { S: text }, ver: { N: '1' } };
      if (index) {
        item.ipk = { S: P.indexPartition(this.name, index.name) };
        item.isk = { S: index.sort };
      }
      return { PutRequest: { Item: item } };
    });
    await this.batchWrite(requests);
  }

  async batchDelete(keys: string[]): Promise<void> {
    await this.batchWrite(keys.map((key) => ({ DeleteRequest: { Key: { pk: { S: this.name }, sk: { S: key } } } })));
  }

  async increment(key: string, by = 1): Promise<number> {
    checkKey(key);
    const out = await this.api.updateItem(P.incrementParams(this.table, this.name, key, by));
    return Number(out.Attributes?.n?.N ?? 0);
  }

  private async batchWrite(requests: WriteRequest[], table = this.table): Promise<void> {
    for (let i = 0; i < requests.length; i += 25) {
      let pending: WriteRequest[] = requests.slice(i, i + 25);
      for (let attempt = 0; pending.length; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const out = await this.api.batchWriteItem({ RequestItems: { [table]: pending } });
        pending = out.UnprocessedItems?.[table] ?? [];
        if (attempt > 10 && pending.length) throw new Error('batch write: items left unprocessed after retries');
      }
    }
  }

  private async writeChunks(key: string, gen: string, text: string): Promise<number> {
    const buf = Buffer.from(text);
    const pk = P.chunkPartition(this.name);
    const requests: WriteRequest[] = [];
    for (let i = 0, n = 0; i < buf.length; i += P.CHUNK_SIZE, n++) {
      requests.push({
        PutRequest: { Item: { pk: { S: pk }, sk: { S: P.chunkKey(key, gen, n) }, b: { B: buf.subarray(i, i + P.CHUNK_SIZE) } } },
      });
    }
    // One chunk per request: a batch is limited to 16 MB, and chunks are large.
    for (const r of requests) await this.batchWrite([r]);
    return requests.length;
  }

  private async readChunks(key: string, gen: string, count: number): Promise<string> {
    const parts: Uint8Array[] = [];
    let start: Item | undefined;
    do {
      const out = await this.api.query({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': { S: P.chunkPartition(this.name) }, ':p': { S: P.chunkPrefix(key, gen) } },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      for (const i of out.Items ?? []) if (i.b?.B) parts.push(i.b.B);
      start = out.LastEvaluatedKey;
    } while (start);
    if (parts.length !== count) throw new Error(`stored value for ${JSON.stringify(key)} is missing chunks`);
    return Buffer.concat(parts).toString('utf8');
  }

  /** Deletes the chunks of one generation of an item's value. */
  async deleteChunks(key: string, gen: string): Promise<void> {
    const pk = P.chunkPartition(this.name);
    let start: Item | undefined;
    do {
      const out = await this.api.query({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': { S: pk }, ':p': { S: P.chunkPrefix(key, gen) } },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      });
      await this.batchWrite((out.Items ?? []).map((k) => ({ DeleteRequest: { Key: { pk: k.pk!, sk: k.sk! } } })));
      start = out.LastEvaluatedKey;
    } while (start);
  }

  /** The stored item of a head item, its chunks read when the value is large. */
  async decode<T>(item: Item): Promise<StoredItem<T>> {
    const key = item.sk?.S ?? '';
    const version = Number(item.ver?.N ?? 0);
    if (item.n?.N !== undefined && item.v === undefined) return { key, version, value: Number(item.n.N) as T };
    const text = item.v?.S ?? (item.gen?.S ? await this.readChunks(key, item.gen.S, Number(item.nch?.N ?? 0)) : 'null');
    return { key, version, value: JSON.parse(text) as T };
  }
}

function page<T>(items: T[], last: Item | undefined): Page<T> {
  const cursor = P.encodeCursor(last);
  return cursor ? { items, cursor } : { items };
}
