/**
 * The local service's store: the `Store` interface in process, directly on LevelDB
 * (classic-level), with no DynamoDB protocol in between. Same semantics as the DynamoDB store
 * (the contract suite, test/store/store-contract.test.ts, runs on both), same cursor form.
 *
 * - One process owns the directory: LevelDB's LOCK file; a second opener gets a clear error.
 * - Every write is planned in turn in this process and committed with its neighbours as one
 *   atomic, fsynced LevelDB batch (lib/store/level-writer.ts): an item and its index entries
 *   change together or not at all, and an acknowledged write survives kill -9.
 * - Reads are synchronous point reads and iterators on the committed state.
 * - Values are stored whole (no chunks); a page of a listing stops at 1000 items or about 1 MB
 *   read, as a DynamoDB Query page does.
 */
import { ClassicLevel } from 'classic-level';
import { resolve } from 'node:path';
import { InvalidInput } from '../domain-errors';
import * as K from './level-keys';
import { LevelPartition } from './level-partition';
import { GroupWriter, type Db } from './level-writer';
import type { ItemRef, Json, Partition, Store, StoredItem, TransactWrite } from './store';
import { checkKey, checkTransact, isCheck, isDelete, isPut } from './transact-check';

/** Directories this process has open. */
const openHere = new Set<string>();

export interface LevelStoreOptions {
  /** fsync every batch (default true). */
  sync?: boolean;
}

export class LevelStore implements Store {
  readonly writer: GroupWriter;
  private readonly partitions = new Map<string, LevelPartition>();

  private constructor(
    readonly db: Db,
    readonly path: string,
    options: LevelStoreOptions,
  ) {
    this.writer = new GroupWriter(db, options.sync ?? true);
  }

  /** Opens (creating) the store under `path`; refuses a directory another process has open. */
  static async open(path: string, options: LevelStoreOptions = {}): Promise<LevelStore> {
    path = resolve(path);
    // LevelDB's own check of a second open in one process closes a descriptor of the LOCK
    // file, which drops the process's lock (POSIX record locks): refuse before it gets there.
    if (openHere.has(path)) throw new Error(`the store at ${path} is already open in this process`);
    openHere.add(path);
    const db: Db = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    try {
      await db.open();
    } catch (e) {
      openHere.delete(path);
      const cause = (e as { cause?: { code?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED') {
        throw new Error(
          `the store at ${path} is in use by another process (its LOCK is held): stop that process, or give this one another DATA_DIR`,
          { cause: e },
        );
      }
      throw e;
    }
    return new LevelStore(db, path, options);
  }

  /** The embedded store's transactions are one LevelDB batch. */
  readonly atomicTransact = true;

  partition(name: string): Partition {
    return this.levelPartition(name);
  }

  private levelPartition(name: string): LevelPartition {
    let p = this.partitions.get(name);
    if (!p) {
      if (name.includes('\0')) throw new InvalidInput('invalid partition name');
      p = new LevelPartition(this.db, this.writer, name);
      this.partitions.set(name, p);
    }
    return p;
  }

  /** Point reads on one snapshot: a transaction committed meanwhile shows whole or not at all. */
  async getMany<T = Json>(refs: readonly ItemRef[]): Promise<(StoredItem<T> | undefined)[]> {
    const parts = refs.map((r) => {
      checkKey(r.key);
      return this.levelPartition(r.partition);
    });
    const snapshot = this.db.snapshot();
    try {
      return refs.map((r, i) => parts[i]!.getAt<T>(r.key, snapshot));
    } finally {
      await snapshot.close();
    }
  }

  /**
   * One plan of the group writer: every condition checked first (a failed one throws, and a plan
   * that throws stages nothing), then every write staged, all in one atomic, fsynced batch.
   */
  async transact(writes: readonly TransactWrite[]): Promise<number[]> {
    const texts = checkTransact(writes);
    if (!writes.length) return [];
    const parts = writes.map((w) => this.levelPartition(w.partition));
    return this.writer.run((view) => {
      writes.forEach((w, i) => parts[i]!.checkCondition(view, w.key, isCheck(w) ? w.check : w));
      return writes.map((w, i) => {
        if (isPut(w)) return parts[i]!.stagePut(view, w.key, texts[i]!, w);
        if (isDelete(w)) parts[i]!.stageDelete(view, w.key, w.ifVersion);
        return 0;
      });
    });
  }

  /** The store's own small records (format, migration marker). */
  getMeta(name: string): string | undefined {
    return this.db.getSync(K.metaKey(name))?.toString('utf8');
  }

  setMeta(name: string, value: string): Promise<void> {
    return this.writer.run((w) => w.put(K.metaKey(name), Buffer.from(value)));
  }

  /** Writes raw records as they are (migration): versions, counters and index entries kept. */
  async importRecords(records: { partition: string; key: string; record: K.ItemRecord }[]): Promise<void> {
    return this.writer.run((w) => {
      for (const { partition, key, record } of records) {
        const part = this.partition(partition) as LevelPartition;
        checkKey(key);
        part.writeRecord(w, key, record);
      }
    });
  }

  async close(): Promise<void> {
    await this.writer.drain();
    await this.db.close();
    openHere.delete(this.path);
  }
}
