/**
 * A partition of the embedded store (lib/store/level-store.ts): point reads and listings on the
 * committed state, writes as plans of the store's group writer (lib/store/level-writer.ts).
 */
import { ConflictError, ExistsError, InvalidInput } from '../domain-errors';
import * as P from './dynamo-params';
import * as K from './level-keys';
import type { Db, GroupWriter, WriteView } from './level-writer';
import type { DeleteOptions, IndexEntry, IndexRange, Json, ListOptions, Page, Partition, PutOptions, StoredItem } from './store';
import { checkKey } from './transact-check';

const PAGE_BYTES = 1024 * 1024;

/** A cursor's start key, in the DynamoDB store's form (so a cursor reads the same on both). */
type CursorKey = Record<string, { S: string }>;

const sameIndex = (a?: [string, string], b?: [string, string]) => a?.[0] === b?.[0] && a?.[1] === b?.[1];

export class LevelPartition implements Partition {
  /** One LevelDB batch: all of a batchPut or none of it. */
  readonly atomicBatch = true;
  private readonly base: Buffer;
  private readonly indexBases = new Map<string, Buffer>();

  constructor(
    private readonly db: Db,
    private readonly writer: GroupWriter,
    readonly name: string,
  ) {
    this.base = K.headBase(name);
  }

  private indexBase(index: string): Buffer {
    let b = this.indexBases.get(index);
    if (!b) {
      b = K.indexBase(this.name, index);
      if (this.indexBases.size < 1000) this.indexBases.set(index, b);
    }
    return b;
  }

  private item<T>(key: string, raw: Buffer): StoredItem<T> {
    const r = K.decodeRecord(raw);
    return { key, value: K.valueOf<T>(r), version: r.ver };
  }

  async get<T = Json>(key: string): Promise<StoredItem<T> | undefined> {
    checkKey(key);
    const raw = this.db.getSync(K.headKey(this.base, key));
    return raw ? this.item<T>(key, raw) : undefined;
  }

  /** The item as `snapshot` has it. */
  getAt<T>(key: string, snapshot: ReturnType<Db['snapshot']>): StoredItem<T> | undefined {
    const raw = this.db.getSync(K.headKey(this.base, key), { snapshot });
    return raw ? this.item<T>(key, raw) : undefined;
  }

  /** Stages `record` under `key` with its index entry, replacing the old record and entry. */
  writeRecord(w: WriteView, key: string, record: K.ItemRecord, old?: K.ItemRecord): void {
    const head = K.headKey(this.base, key);
    if (!sameIndex(old?.ix, record.ix)) {
      if (old?.ix) w.del(K.indexKey(this.indexBase(old.ix[0]), old.ix[1], key));
      if (record.ix) w.put(K.indexKey(this.indexBase(record.ix[0]), record.ix[1], key), Buffer.alloc(0));
    }
    w.put(head, K.encodeRecord(record));
  }

  private read(w: WriteView, key: string): K.ItemRecord | undefined {
    const raw = w.get(K.headKey(this.base, key));
    return raw ? K.decodeRecord(raw) : undefined;
  }

  private remove(w: WriteView, key: string, old: K.ItemRecord): void {
    if (old.ix) w.del(K.indexKey(this.indexBase(old.ix[0]), old.ix[1], key));
    w.del(K.headKey(this.base, key));
  }

  async put(key: string, value: Json, options: PutOptions = {}): Promise<number> {
    checkKey(key);
    const v = JSON.stringify(value);
    return this.writer.run((w) => this.stagePut(w, key, v, options));
  }

  async delete(key: string, options: DeleteOptions = {}): Promise<boolean> {
    checkKey(key);
    return this.writer.run((w) => this.stageDelete(w, key, options.ifVersion));
  }

  /** Throws what a write with these conditions would when they do not hold. */
  checkCondition(w: WriteView, key: string, c: { ifAbsent?: boolean; ifVersion?: number }): void {
    const old = this.read(w, key);
    if (c.ifAbsent) {
      if (old) throw new ExistsError();
    } else if (c.ifVersion !== undefined && old?.ver !== c.ifVersion) {
      throw new ConflictError();
    }
  }

  /** Checks the conditions and stages a put of JSON text `v`; returns the new version. */
  stagePut(w: WriteView, key: string, v: string, options: PutOptions): number {
    this.checkCondition(w, key, options);
    const old = this.read(w, key);
    const record: K.ItemRecord = { ver: (old?.ver ?? 0) + 1, v };
    if (old?.n !== undefined) record.n = old.n;
    let ix = old?.ix;
    if (options.index !== undefined) ix = options.index ? [options.index.name, options.index.sort] : undefined;
    if (ix) record.ix = ix;
    this.writeRecord(w, key, record, old);
    return record.ver;
  }

  /** Checks the version and stages a delete; returns whether there was an item. */
  stageDelete(w: WriteView, key: string, ifVersion: number | undefined): boolean {
    this.checkCondition(w, key, { ifVersion });
    const old = this.read(w, key);
    if (!old) return false;
    this.remove(w, key, old);
    return true;
  }

  async increment(key: string, by = 1): Promise<number> {
    checkKey(key);
    if (!Number.isFinite(by)) throw new InvalidInput('increment by a finite number');
    return this.writer.run((w) => {
      const old = this.read(w, key);
      const record: K.ItemRecord = { ...old, ver: (old?.ver ?? 0) + 1, n: (old?.n ?? 0) + by };
      this.writeRecord(w, key, record, old);
      return record.n!;
    });
  }

  async batchPut(items: { key: string; value: Json; index?: IndexEntry }[]): Promise<void> {
    const records = items.map(({ key, value, index }) => {
      checkKey(key);
      const v = JSON.stringify(value);
      if (Buffer.byteLength(v) > P.INLINE_LIMIT) throw new InvalidInput('value too large for a batch write');
      const record: K.ItemRecord = { ver: 1, v };
      if (index) record.ix = [index.name, index.sort];
      return { key, record };
    });
    if (!records.length) return;
    await this.writer.run((w) => {
      for (const { key, record } of records) this.writeRecord(w, key, record, this.read(w, key));
    });
  }

  async batchDelete(keys: string[]): Promise<void> {
    keys.forEach(checkKey);
    if (!keys.length) return;
    await this.writer.run((w) => {
      for (const key of keys) {
        const old = this.read(w, key);
        if (old) this.remove(w, key, old);
      }
    });
  }

  async list<T = Json>(prefix: string, options: ListOptions = {}): Promise<Page<StoredItem<T>>> {
    const start = P.startKeyOf(options.cursor, (k) => P.isPrefixStartKey(k, this.name, prefix));
    const range = K.prefixRange(K.headKey(this.base, prefix));
    const it = this.db.iterator(start ? { gt: K.headKey(this.base, start.sk!.S!), lt: range.lt } : range);
    const items: StoredItem<T>[] = [];
    return this.page(it, P.pageSize(options), items, ([raw, value]) => {
      const key = K.keyOfHead(raw, this.base);
      items.push(this.item<T>(key, value));
      return { size: raw.length + value.length, cursor: { pk: { S: this.name }, sk: { S: key } } };
    });
  }

  async listKeys(prefix: string, options: ListOptions = {}): Promise<Page<string>> {
    const start = P.startKeyOf(options.cursor, (k) => P.isPrefixStartKey(k, this.name, prefix));
    const range = K.prefixRange(K.headKey(this.base, prefix));
    const it = this.db.iterator({ ...(start ? { gt: K.headKey(this.base, start.sk!.S!), lt: range.lt } : range), values: false });
    const items: string[] = [];
    return this.page(it, P.pageSize(options), items, ([raw]) => {
      const key = K.keyOfHead(raw, this.base);
      items.push(key);
      return { size: raw.length, cursor: { pk: { S: this.name }, sk: { S: key } } };
    });
  }

  async queryIndex<T = Json>(name: string, range: IndexRange = {}): Promise<Page<StoredItem<T>>> {
    const ipk = P.indexPartition(this.name, name);
    const start = P.startKeyOf(range.cursor, (k) => P.isIndexStartKey(k, this.name, ipk, range));
    const base = this.indexBase(name);
    const bounds = K.indexRange(base, range.from, range.to);
    // One snapshot for the entries and the items they point at: an entry and its item agree.
    const snapshot = this.db.snapshot();
    try {
      const it = this.db.iterator({
        ...(start ? { gt: K.indexKey(base, start.isk!.S!, start.sk!.S!), lt: bounds.lt } : bounds),
        values: false,
        snapshot,
      });
      const items: StoredItem<T>[] = [];
      return await this.page(it, P.pageSize(range), items, ([raw]) => {
        const { sort, key } = K.parseIndexKey(raw, base);
        const head = this.db.getSync(K.headKey(this.base, key), { snapshot });
        if (head) items.push(this.item<T>(key, head));
        return {
          size: raw.length + (head?.length ?? 0),
          cursor: { pk: { S: this.name }, sk: { S: key }, ipk: { S: ipk }, isk: { S: sort } },
        };
      });
    } finally {
      await snapshot.close();
    }
  }

  /**
   * Reads entries into a page until `limit` entries or PAGE_BYTES; the cursor (the last entry's
   * start key) is given only when another entry follows.
   */
  private async page<T>(
    it: { nextv(n: number): Promise<[Buffer, Buffer][]>; close(): Promise<void> },
    limit: number,
    items: T[],
    take: (entry: [Buffer, Buffer]) => { size: number; cursor: CursorKey },
  ): Promise<Page<T>> {
    let bytes = 0;
    let taken = 0;
    let last: CursorKey | undefined;
    try {
      for (;;) {
        // Once the page is full, one more entry says whether a cursor is needed.
        const full = taken >= limit || bytes >= PAGE_BYTES;
        const batch = await it.nextv(full ? 1 : Math.min(limit - taken + 1, 100));
        if (!batch.length) return { items };
        for (const entry of batch) {
          if (taken >= limit || bytes >= PAGE_BYTES) return { items, cursor: P.encodeCursor(last)! };
          const t = take(entry);
          taken++;
          bytes += t.size;
          last = t.cursor;
        }
      }
    } finally {
      await it.close();
    }
  }
}
