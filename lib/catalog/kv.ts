/**
 * The key/value store: entries under `kv/<key>` in the catalog partition, values sealed at rest
 * (they often hold secrets), Create/Modify/Lock indexes from the global modify index, and
 * check-and-set by conditional write on the item's version.
 */
import { ConflictError, ExistsError, Forbidden } from '../domain-errors';
import type { SealedValue, Sealer } from '../keys/sealed';
import { mutate, type Partition, type Store, type StoredItem } from '../store/store';
import { Heads } from './heads';
import { guessed, readKnown, transactPut, type Known, type NextRecord } from './kv-write';
import type { ModifyIndex } from './modify-index';

export interface KvEntry {
  key: string;
  /** null when the stored value is empty, as the reference answers. */
  value: Buffer | null;
  /** 0..2^64-1: a bigint above 2^53 - 1. */
  flags: number | bigint;
  createIndex: number;
  modifyIndex: number;
  lockIndex: number;
}

/** A sealed value as stored (plain JSON). */
type SealedJson = { [k: string]: string | number };

interface StoredKv {
  value: SealedJson | null;
  /** A decimal string when above 2^53 - 1. */
  flags: number | string;
  createIndex: number;
  modifyIndex: number;
  lockIndex: number;
  [k: string]: SealedJson | null | number | string;
}

const PREFIX = 'kv/';
const SCOPE = 'catalog';
const PLAIN_PUT_ATTEMPTS = 40;
/**
 * The largest record written in one transaction with the counter (a transaction takes inline
 * values only: lib/store INLINE_LIMIT, 300 000); larger ones take the ordered path.
 */
const TRANSACT_RECORD_LIMIT = 250_000;
const storageKey = (key: string) => PREFIX + key;
/** How long, and for how many keys, a write's read made while its token was checked is kept for it. */
const PREPARED_MS = 1000;
const MAX_PREPARED = 1000;

/** One key's stored item (unopened) and the index to answer with it (KvStore.find, watch). */
export interface Found {
  item: StoredItem<StoredKv> | undefined;
  index: number;
}

export class KvStore {
  private readonly heads = new Heads();
  /** Reads of what a write of a key conditions on, started before its access was known (`prepare`). */
  private readonly preparing = new Map<string, { at: number; read: Promise<Known | undefined> }>();

  constructor(
    private readonly part: Partition,
    private readonly sealer: Sealer,
    private readonly index: ModifyIndex,
    private readonly store: Store,
  ) {}

  /**
   * Reads the stored item without opening its value: a request may start this before its access
   * is checked, and open it (`open`) only once the read is allowed.
   */
  read(key: string): Promise<StoredItem<StoredKv> | undefined> {
    const sk = storageKey(key);
    return this.part.get<StoredKv>(sk).then((item) => {
      this.heads.noteItem(sk, item);
      return item;
    });
  }

  async get(key: string): Promise<KvEntry | undefined> {
    const item = await this.read(key);
    return item ? this.open(item) : undefined;
  }

  /**
   * The entry and the index Consul answers for one key (its kvs_endpoint.go Get): the entry's
   * ModifyIndex, or the catalog's index when absent. An entry found needs no index read (the
   * index is read beside it, for the absent case); an absent one is read again after the index,
   * so that a write this answer misses always moves the index past the one it answers.
   */
  async find(key: string): Promise<Found> {
    const [index, item] = await Promise.all([this.index.current(), this.read(key)]);
    if (item) return { item, index: item.value.modifyIndex };
    const again = await this.read(key);
    return { item: again, index: again ? again.value.modifyIndex : index };
  }

  /**
   * A blocking read of one key: waits until the index it would answer passes `after` (the entry
   * is written past it, or is absent and the catalog's index moved past it), or `waitMs` ends.
   * Each round reads the index before the entry and waits for the index to pass that read, so
   * no write to the entry can be slept through.
   */
  async watch(key: string, after: number, waitMs: number, signal?: AbortSignal): Promise<Found> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const seen = await this.index.current();
      const item = await this.read(key);
      const found = { item, index: item ? item.value.modifyIndex : seen };
      if (found.index > after || Date.now() >= deadline || signal?.aborted) return found;
      await this.index.waitPast(seen, deadline - Date.now(), signal);
    }
  }

  /** Every entry under `prefix` that `visible` lets through; `filtered` when it held some back. */
  async list(prefix: string, visible: (key: string) => boolean): Promise<{ entries: KvEntry[]; filtered: boolean }> {
    const entries: KvEntry[] = [];
    let filtered = false;
    let cursor: string | undefined;
    do {
      const page = await this.part.list<StoredKv>(storageKey(prefix), cursor ? { cursor } : {});
      for (const item of page.items) {
        if (visible(item.key.slice(PREFIX.length))) entries.push(await this.open(item));
        else filtered = true;
      }
      cursor = page.cursor;
    } while (cursor);
    return { entries, filtered };
  }

  /** Keys under `prefix`; with a separator, keys are cut after its first occurrence past the prefix. */
  async keys(prefix: string, separator: string, visible: (key: string) => boolean): Promise<{ keys: string[]; filtered: boolean }> {
    const out = new Set<string>();
    let filtered = false;
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(storageKey(prefix), cursor ? { cursor } : {});
      for (const sk of page.items) {
        const key = sk.slice(PREFIX.length);
        if (!visible(key)) {
          filtered = true;
          continue;
        }
        const at = separator ? key.indexOf(separator, prefix.length) : -1;
        out.add(at === -1 ? key : key.slice(0, at + separator.length));
      }
      cursor = page.cursor;
    } while (cursor);
    return { keys: [...out], filtered };
  }

  /**
   * Reads what a write of `key` will condition on (the counter and the entry's version), unless
   * this process knows them from a recent read or write: a request starts this while its token is
   * checked, so the write itself is then one transaction. Only versions and indexes are kept.
   */
  prepare(key: string): void {
    const sk = storageKey(key);
    if (guessed(this.writeParts(), sk)) return;
    this.preparing.delete(sk);
    this.preparing.set(sk, { at: Date.now(), read: readKnown(this.writeParts(), sk).catch(() => undefined) });
    // Requests refused before writing leave theirs: the oldest go.
    if (this.preparing.size > MAX_PREPARED) this.preparing.delete(this.preparing.keys().next().value!);
  }

  /** The read `prepare` started for `sk`, if recent; taken once. */
  private async prepared(sk: string): Promise<Known | undefined> {
    const p = this.preparing.get(sk);
    this.preparing.delete(sk);
    return p && Date.now() - p.at < PREPARED_MS ? p.read : undefined;
  }

  /** Writes the value. With `cas`, only when the entry's ModifyIndex is `cas` (0: only when absent). */
  async put(key: string, value: Uint8Array, flags: number | bigint, cas?: number): Promise<boolean> {
    const sk = storageKey(key);
    const sealed = value.byteLength ? { ...(await this.sealer.seal(Buffer.from(value), SCOPE, sk)) } : null;
    const stored = typeof flags === 'bigint' ? flags.toString() : flags;
    if (JSON.stringify(sealed).length <= TRANSACT_RECORD_LIMIT) {
      const prepared = await this.prepared(sk);
      return transactPut(this.writeParts(), sk, (modifyIndex) => nextRecord(sealed, stored, modifyIndex, cas), prepared);
    }
    this.heads.delete(sk);
    const modifyIndex = await this.index.next();
    const record = (createIndex = modifyIndex): StoredKv => ({ value: sealed, flags: stored, createIndex, modifyIndex, lockIndex: 0 });
    if (cas === undefined) {
      // Last writer wins, but CreateIndex is kept: retried (generously) when a writer overtakes.
      await mutate<StoredKv>(this.part, sk, (cur) => record(cur?.createIndex), { attempts: PLAIN_PUT_ATTEMPTS });
    } else if (!(await this.casPut(sk, cas, record))) {
      return false;
    }
    await this.index.settle();
    return true;
  }

  private writeParts() {
    return { store: this.store, partition: this.part.name, index: this.index, heads: this.heads };
  }

  private async casPut(sk: string, cas: number, record: (createIndex?: number) => StoredKv): Promise<boolean> {
    try {
      if (cas === 0) {
        await this.part.put(sk, record(), { ifAbsent: true });
        return true;
      }
      const cur = await this.part.get<StoredKv>(sk);
      if (!cur || cur.value.modifyIndex !== cas) return false;
      await this.part.put(sk, record(cur.value.createIndex), { ifVersion: cur.version });
      return true;
    } catch (e) {
      if (e instanceof ConflictError || e instanceof ExistsError) return false;
      throw e;
    }
  }

  /** Deletes the entry (true when absent, with or without `cas`, as the reference answers). With `cas`, only when its ModifyIndex is `cas`. */
  async delete(key: string, cas?: number): Promise<boolean> {
    const sk = storageKey(key);
    this.heads.delete(sk);
    if (cas === undefined) {
      await this.part.delete(sk);
    } else {
      const cur = await this.part.get<StoredKv>(sk);
      if (!cur) return true;
      if (cur.value.modifyIndex !== cas) return false;
      try {
        await this.part.delete(sk, { ifVersion: cur.version });
      } catch (e) {
        if (e instanceof ConflictError) return false;
        throw e;
      }
    }
    await this.index.settle();
    return true;
  }

  /** Deletes every entry under `prefix`; refuses (deleting nothing) if `mayDelete` refuses one. */
  async deleteTree(prefix: string, mayDelete: (key: string) => boolean): Promise<void> {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(storageKey(prefix), cursor ? { cursor } : {});
      keys.push(...page.items);
      cursor = page.cursor;
    } while (cursor);
    if (!keys.every((sk) => mayDelete(sk.slice(PREFIX.length)))) throw new Forbidden('Permission denied');
    keys.forEach((sk) => this.heads.delete(sk));
    for (let i = 0; i < keys.length; i += 16) await Promise.all(keys.slice(i, i + 16).map((sk) => this.part.delete(sk)));
    await this.index.settle();
  }

  async open(item: StoredItem<StoredKv>): Promise<KvEntry> {
    const v = item.value;
    return {
      key: item.key.slice(PREFIX.length),
      value: v.value ? await this.sealer.open(v.value as SealedValue, item.key) : null,
      flags: typeof v.flags === 'string' ? BigInt(v.flags) : v.flags,
      createIndex: v.createIndex,
      modifyIndex: v.modifyIndex,
      lockIndex: v.lockIndex,
    };
  }
}

/** The record a write makes of an entry with `head` (undefined: absent), or undefined when `cas` does not hold. */
function nextRecord(sealed: SealedJson | null, flags: number | string, modifyIndex: number, cas: number | undefined): NextRecord {
  return (head) => {
    if (cas !== undefined && (cas === 0 ? head !== undefined : head?.modifyIndex !== cas)) return undefined;
    return { value: sealed, flags, createIndex: head?.createIndex ?? modifyIndex, modifyIndex, lockIndex: 0 };
  };
}
