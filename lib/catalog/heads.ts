/**
 * What this process last knew of KV entries' items: version, CreateIndex and ModifyIndex (never
 * the value), or that the entry was absent, for a short while and for a bounded number of keys.
 * A write conditions on the version it finds here, so a stale head only fails the write, which
 * then reads the entry (lib/catalog/kv-write.ts).
 */
import type { StoredItem } from '../store/store';

export type EntryHead = { version: number; createIndex: number; modifyIndex: number };
export type Head = ({ present: true } & EntryHead) | { present: false };

/** How long a head is used without reading, and how many are kept. */
const TRUST_MS = 1000;
const MAX_HEADS = 1000;

export class Heads {
  private readonly map = new Map<string, Head & { at: number }>();

  get(sk: string): Head | undefined {
    const h = this.map.get(sk);
    if (!h || Date.now() - h.at >= TRUST_MS) return undefined;
    const { at: _at, ...head } = h;
    return head;
  }

  set(sk: string, head: Head): void {
    this.map.delete(sk);
    this.map.set(sk, { ...head, at: Date.now() });
    if (this.map.size > MAX_HEADS) this.map.delete(this.map.keys().next().value!);
  }

  delete(sk: string): void {
    this.map.delete(sk);
  }

  /** Records the head of an item just read; returns it (undefined when absent). */
  noteItem(sk: string, item: StoredItem<{ createIndex: number; modifyIndex: number }> | undefined): EntryHead | undefined {
    if (!item) {
      this.set(sk, { present: false });
      return undefined;
    }
    const head = { version: item.version, createIndex: item.value.createIndex, modifyIndex: item.value.modifyIndex };
    // A read overtaken by this process's own later write keeps the write's head.
    const known = this.get(sk);
    if (!known?.present || known.version <= head.version) this.set(sk, { present: true, ...head });
    return head;
  }
}
