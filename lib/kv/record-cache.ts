/**
 * What this process last wrote of KV version 2 secrets (each record with its store version) and
 * each mount's config, for a short while and for a bounded number of records, so a write with a
 * warm cache makes one round trip: its conditional write.
 *
 * A record here is a guess, never an answer: reads go to the store. A write's existence check
 * (create or update) may answer from it, and the write's first attempt is conditioned on its
 * version, so a stale record only fails that attempt; the write then reads the record and decides
 * again, and when the secret turned out to exist, or not, the request is authorised again as the
 * other operation (lib/http/path.ts `Req.existence`). The config is used as read for up to
 * TRUST_MS (a change made through another instance shows within it, as PKI's roles within 2 s).
 */
import type { Store, StoredItem } from '../store/store';
import { TtlCache } from '../ttl-cache';
import type { KvConfig, SecretRecord } from './records';

/** How long a record or a config is used without reading it. */
export const TRUST_MS = 1000;
/** Records kept per process, and the largest kept (JSON bytes): the cache holds at most ~16 MiB. */
const MAX_RECORDS = 256;
export const MAX_CACHED_BYTES = 64 * 1024;

export interface KvCache {
  records: TtlCache<string, StoredItem<SecretRecord>>;
  configs: TtlCache<string, KvConfig>;
}

const caches = new WeakMap<Store, KvCache>();

/** The store's cache (one per store: the local service runs several stores in tests). */
export function kvCache(store: Store): KvCache {
  let c = caches.get(store);
  if (!c) caches.set(store, (c = { records: new TtlCache(TRUST_MS, MAX_RECORDS), configs: new TtlCache(TRUST_MS, MAX_RECORDS) }));
  return c;
}

/** A record's cache key: its mount's partition and its key. */
export const recordKey = (partition: string, key: string) => `${partition}\u0000${key}`;
