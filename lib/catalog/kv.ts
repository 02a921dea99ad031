/**
 * The key/value store: entries under `kv/<key>` in the catalog partition, values sealed at rest
 * (they often hold secrets), Create/Modify/Lock indexes from the global modify index, and
 * check-and-set by conditional write on the item's version.
 */
import { ConflictError, ExistsError, Forbidden } from '../domain-errors';
import type { SealedValue, Sealer } from '../keys/sealed';
import { mutate, type Partition, type StoredItem } from '../store/store';
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
const storageKey = (key: string) => PREFIX + key;

export class KvStore {
  constructor(
    private readonly part: Partition,
    private readonly sealer: Sealer,
    private readonly index: ModifyIndex,
  ) {}

  async get(key: string): Promise<KvEntry | undefined> {
    const item = await this.part.get<StoredKv>(storageKey(key));
    return item ? this.open(item) : undefined;
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

  /** Writes the value. With `cas`, only when the entry's ModifyIndex is `cas` (0: only when absent). */
  async put(key: string, value: Uint8Array, flags: number | bigint, cas?: number): Promise<boolean> {
    const sk = storageKey(key);
    const sealed = value.byteLength ? { ...(await this.sealer.seal(Buffer.from(value), SCOPE, sk)) } : null;
    const modifyIndex = await this.index.next();
    const stored = typeof flags === 'bigint' ? flags.toString() : flags;
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
    for (let i = 0; i < keys.length; i += 16) await Promise.all(keys.slice(i, i + 16).map((sk) => this.part.delete(sk)));
    await this.index.settle();
  }

  private async open(item: StoredItem<StoredKv>): Promise<KvEntry> {
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
