/**
 * Store.transact on DynamoDB: one TransactWriteItems (all or nothing, conditions checked before
 * any write). DynamoDB returns no old attributes from a transaction, so every put and delete pins
 * the state it replaces in its condition: the version (the caller's ifVersion, or one read first
 * for an unconditional write) and the chunk generation of a large old value, whose chunks are
 * deleted once the transaction has landed (as Partition.put does). A cancelled transaction is
 * explained by reading the items whose condition failed: the caller's condition failing becomes
 * ExistsError or ConflictError; a state the store guessed wrong (chunks, a concurrent writer)
 * is corrected and the transaction sent again, a bounded number of times.
 */
import { ConflictError, ExistsError } from '../domain-errors';
import { TransactionCancelled, type DynamoApi } from './dynamo-api';
import { batchGetRaw } from './dynamo-batch-get';
import type { TransactWrite } from './store';
import { checkTransact, isCheck, isPut, refId } from './transact-check';
import { transactItem, type Expect } from './transact-params';

const ATTEMPTS = 6;
/** Reasons worth sending the transaction again for; any other one is an error. */
const RETRYABLE = new Set(['None', 'ConditionalCheckFailed', 'TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded']);

export interface TransactContext {
  api: DynamoApi;
  table: string;
  /** Deletes the chunk items of generation `gen` of an item's old value. */
  dropChunks(partition: string, key: string, gen: string): Promise<void>;
}

/** The condition the caller stated, or undefined for an unconditional put or delete. */
function stated(w: TransactWrite): Expect | undefined {
  const c = isCheck(w) ? w.check : w;
  if ('ifAbsent' in c && c.ifAbsent) return { absent: true };
  return c.ifVersion !== undefined ? { ver: c.ifVersion } : undefined;
}

export async function dynamoTransact(ctx: TransactContext, writes: readonly TransactWrite[]): Promise<number[]> {
  const texts = checkTransact(writes);
  if (!writes.length) return [];
  const expects = writes.map(stated);
  for (let attempt = 1; ; attempt++) {
    const pinned = await pin(ctx, writes, expects);
    try {
      const items = writes.map((w, i) => transactItem(ctx.table, w, texts[i], pinned[i]!));
      await ctx.api.transactWriteItems({ TransactItems: items });
    } catch (e) {
      if (!(e instanceof TransactionCancelled) || !e.codes.every((c) => RETRYABLE.has(c))) throw e;
      await explain(ctx, writes, expects, e.codes);
      if (attempt >= ATTEMPTS) throw new ConflictError();
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(500, 10 * 2 ** attempt)));
      continue;
    }
    await Promise.all(
      writes.map((w, i) => {
        const old = pinned[i]!;
        return !isCheck(w) && !old.absent && old.gen ? ctx.dropChunks(w.partition, w.key, old.gen) : undefined;
      }),
    );
    return writes.map((w, i) => (isPut(w) ? (pinned[i]!.absent ? 1 : (pinned[i] as { ver: number }).ver + 1) : 0));
  }
}

/** The expectations of this attempt: the stated ones, and the current state for the others. */
async function pin(ctx: TransactContext, writes: readonly TransactWrite[], expects: (Expect | undefined)[]): Promise<Expect[]> {
  const unknown = writes.filter((_, i) => !expects[i]);
  if (!unknown.length) return expects as Expect[];
  const found = await batchGetRaw(ctx.api, ctx.table, unknown, 'pk, sk, ver, gen');
  return writes.map((w, i) => {
    if (expects[i]) return expects[i];
    const item = found.get(refId(w));
    return item ? { ver: Number(item.ver?.N ?? 0), ...(item.gen?.S ? { gen: item.gen.S } : {}) } : { absent: true };
  });
}

/**
 * Reads the items whose condition failed. Throws the domain error of the first stated condition
 * that does not hold; otherwise records the chunk generation found under a stated version, so
 * the next attempt pins it.
 */
async function explain(ctx: TransactContext, writes: readonly TransactWrite[], expects: (Expect | undefined)[], codes: string[]) {
  const failed = writes.filter((_, i) => codes[i] === 'ConditionalCheckFailed');
  if (!failed.length) return;
  const found = await batchGetRaw(ctx.api, ctx.table, failed, 'pk, sk, ver, gen');
  writes.forEach((w, i) => {
    const want = expects[i];
    if (codes[i] !== 'ConditionalCheckFailed' || !want) return;
    const item = found.get(refId(w));
    if (want.absent) {
      if (item) throw new ExistsError();
      return;
    }
    if (!item || Number(item.ver?.N) !== want.ver) throw new ConflictError();
    expects[i] = { ver: want.ver, ...(item.gen?.S ? { gen: item.gen.S } : {}) };
  });
}
