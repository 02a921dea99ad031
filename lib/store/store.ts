/**
 * The narrow storage interface every engine uses. One DynamoDB table underneath; a
 * `Partition` is one engine mount's slice of it (partition key), keys are paths (sort key).
 *
 * Single-item conditional writes, Query, batch writes, a batch read of items across partitions
 * (`getMany`) and all-or-nothing writes across partitions (`transact`). No Scan.
 */
import { ConflictError, ExistsError } from '../domain-errors';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface StoredItem<T = Json> {
  key: string;
  value: T;
  /** Optimistic-concurrency version, 1 on first write, +1 on every write. */
  version: number;
}

/** A sparse secondary-index entry: items with the same `name` in one partition, ordered by `sort`. */
export interface IndexEntry {
  name: string;
  sort: string;
}

export interface PutOptions {
  /** Fail with ExistsError when the key is already present. */
  ifAbsent?: boolean;
  /** Fail with ConflictError unless the stored version is this one. */
  ifVersion?: number;
  /** Put the item in a sparse index (or, with null, take it out). */
  index?: IndexEntry | null;
}

export interface DeleteOptions {
  ifVersion?: number;
}

export interface Page<T> {
  items: T[];
  /** Opaque; pass back to continue. Absent on the last page. */
  cursor?: string;
}

export interface ListOptions {
  limit?: number;
  cursor?: string;
}

export interface IndexRange extends ListOptions {
  /** Inclusive lower bound on the index sort value. */
  from?: string;
  /** Inclusive upper bound on the index sort value. */
  to?: string;
}

export interface Partition {
  readonly name: string;
  /**
   * Whether `batchPut` writes all its items or none, even across a crash (the embedded store's
   * one LevelDB batch). DynamoDB's BatchWriteItem does not: a crash may leave part of a batch.
   */
  readonly atomicBatch?: boolean;
  get<T = Json>(key: string): Promise<StoredItem<T> | undefined>;
  /** Writes the value and returns the new version. */
  put(key: string, value: Json, options?: PutOptions): Promise<number>;
  /** Returns whether an item was deleted. */
  delete(key: string, options?: DeleteOptions): Promise<boolean>;
  /** Items whose key starts with `prefix`, in key order. */
  list<T = Json>(prefix: string, options?: ListOptions): Promise<Page<StoredItem<T>>>;
  /** Keys (without values) starting with `prefix`, in key order. */
  listKeys(prefix: string, options?: ListOptions): Promise<Page<string>>;
  /** Items in the named sparse index, ordered by sort value. Eventually consistent. */
  queryIndex<T = Json>(name: string, range?: IndexRange): Promise<Page<StoredItem<T>>>;
  /**
   * Unconditional writes of many small items (25 per request underneath), for records that are
   * written whole and not versioned afterwards: an overwritten item's version starts again at 1,
   * and values too large for one item are refused.
   */
  batchPut(items: { key: string; value: Json; index?: IndexEntry }[]): Promise<void>;
  /** Deletes many items written by batchPut (inline values; use delete() for chunked ones). */
  batchDelete(keys: string[]): Promise<void>;
  /** Atomically adds `by` to a numeric counter item and returns the new value. */
  increment(key: string, by?: number): Promise<number>;
}

/** One item of the store, named by its partition and key (getMany, transact). */
export interface ItemRef {
  partition: string;
  key: string;
}

/** A put in a transaction: the semantics of Partition.put (versions, index), inline values only. */
export interface TransactPut extends ItemRef, PutOptions {
  value: Json;
}

/** A delete in a transaction: the semantics of Partition.delete. */
export interface TransactDelete extends ItemRef {
  delete: true;
  ifVersion?: number;
}

/** A condition on an item that the transaction needs to hold and does not write. */
export interface TransactCheck extends ItemRef {
  check: { ifAbsent?: boolean; ifVersion?: number };
}

export type TransactWrite = TransactPut | TransactDelete | TransactCheck;

/** Most writes in one transaction (DynamoDB's TransactWriteItems limit). */
export const MAX_TRANSACT_WRITES = 100;

export interface Store {
  partition(name: string): Partition;
  /**
   * Whether `transact` is all or nothing, even across a crash: true on both stores (DynamoDB's
   * TransactWriteItems; one LevelDB batch on the embedded store).
   */
  readonly atomicTransact: boolean;
  /**
   * Strongly consistent reads of many items, in the order asked (undefined where absent).
   * Duplicates are allowed; large values come back whole. Each item is read as `get` reads it;
   * on DynamoDB the items are not one snapshot (BatchGetItem is not a transaction): a
   * transaction committed meanwhile may show in some items and not yet in others. The embedded
   * store reads them on one snapshot.
   */
  getMany<T = Json>(refs: readonly ItemRef[]): Promise<(StoredItem<T> | undefined)[]>;
  /**
   * All of `writes` or none of them: every condition is checked before anything is written, and a
   * failed one throws what the single write would (ExistsError for ifAbsent, ConflictError for a
   * version). At most MAX_TRANSACT_WRITES writes, one per item, values that fit inline
   * (INLINE_LIMIT) and a few MB in all; otherwise InvalidInput. Returns each put's new version (0
   * for deletes and checks).
   */
  transact(writes: readonly TransactWrite[]): Promise<number[]>;
}

/**
 * Read-modify-write with optimistic concurrency: reads `key`, calls `change` with the current
 * value (undefined when absent) and writes what it returns, retrying when another writer won.
 * `change` returning undefined means "no write". Returns what was written (or undefined).
 */
export async function mutate<T extends Json>(
  part: Partition,
  key: string,
  change: (current: T | undefined) => T | undefined | Promise<T | undefined>,
  options: { attempts?: number; index?: (value: T) => IndexEntry | null; written?: (version: number) => void } = {},
): Promise<T | undefined> {
  const attempts = options.attempts ?? 8;
  for (let i = 0; ; i++) {
    const current = await part.get<T>(key);
    const next = await change(current?.value);
    if (next === undefined) return undefined;
    try {
      const version = await part.put(key, next, {
        ...(current ? { ifVersion: current.version } : { ifAbsent: true }),
        ...(options.index ? { index: options.index(next) } : {}),
      });
      options.written?.(version);
      return next;
    } catch (e) {
      const lost = e instanceof ConflictError || e instanceof ExistsError;
      if (!lost || i + 1 >= attempts) throw e;
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (i + 1)));
    }
  }
}
