/**
 * The KV engine's records in its mount's partition: `config` (version 2's mount settings),
 * `s/<path>` one record per secret. Version 2 keeps a secret's metadata and every kept version in
 * that one record (each version's data sealed under the mount's scope, bound to its path and
 * version), changed only by `mutate`, so a check-and-set and the trimming of old versions are one
 * conditional write: of N concurrent writers naming the same cas exactly one succeeds. Version 1
 * keeps the sealed data alone. The store splits records over 300 KB into chunks behind one head
 * item (crash-safe); a record over MAX_RECORD_BYTES is refused before anything is written.
 */
import type { Deps } from '../deps';
import { ConflictError, InvalidInput } from '../domain-errors';
import type { SealedValue } from '../keys/sealed';
import { mutate, type Json, type Partition } from '../store/store';
import { kvCache, MAX_CACHED_BYTES, recordKey } from './record-cache';
import { DEFAULT_CONFIG, type KvConfig, type SecretRecord } from './records';

/** The most a secret's record may hold, all kept versions sealed (base64): 8 MiB. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/** A record too large to keep (the edge answers 413). */
export class TooLarge extends InvalidInput {}

type V1Record = { sealed: SealedValue };

export const secretKey = (path: string) => `s/${path}`;
/** Version 2's mount settings. */
export const CONFIG_KEY = 'config';

/** Told what a write finds when it writes: whether the secret exists (the request may have been let in as the other operation). */
export type ConfirmExistence = (exists: boolean) => Promise<void>;

export class KvStore {
  /** `confirm`: told, as each change is made, whether the secret exists (a write let in as create or update: lib/http/path.ts `existence`). */
  constructor(
    private readonly deps: Pick<Deps, 'sealer' | 'store'>,
    readonly part: Partition,
    private readonly confirm?: ConfirmExistence,
  ) {}

  private get cache() {
    return kvCache(this.deps.store);
  }

  /** The mount's config as stored (`fresh`), or as this process last saw it within TRUST_MS (writes: record-cache.ts). */
  async config({ fresh = true } = {}): Promise<KvConfig> {
    const key = recordKey(this.part.name, CONFIG_KEY);
    const seen = fresh ? undefined : this.cache.configs.get(key);
    if (seen) return seen;
    const config = (await this.part.get<KvConfig>(CONFIG_KEY))?.value ?? DEFAULT_CONFIG;
    this.cache.configs.set(key, config);
    return config;
  }

  /** Whether the config is fresh enough in this process not to be read (a write's readAhead skips it then). */
  knowsConfig(): boolean {
    return this.cache.configs.get(recordKey(this.part.name, CONFIG_KEY)) !== undefined;
  }

  async putConfig(config: KvConfig): Promise<void> {
    const key = recordKey(this.part.name, CONFIG_KEY);
    this.cache.configs.delete(key);
    await this.part.put(CONFIG_KEY, config);
    this.cache.configs.set(key, config);
  }

  async secret(path: string): Promise<SecretRecord | undefined> {
    return (await this.part.get<SecretRecord>(secretKey(path)))?.value;
  }

  /**
   * Whether the secret is there. With `guess`, a record this process wrote within TRUST_MS
   * answers yes without a read: `change` verifies it (its first attempt is conditioned on it).
   */
  async exists(path: string, { guess = false } = {}): Promise<boolean> {
    if (guess && this.cache.records.get(recordKey(this.part.name, secretKey(path)))) return true;
    return (await this.part.get(secretKey(path))) !== undefined;
  }

  /**
   * Read-modify-write of one secret's record; `change` returning undefined writes nothing.
   * `confirm` hears whether the record exists each time a change of it is about to be written.
   */
  async change(path: string, change: RecordChange): Promise<SecretRecord | undefined> {
    const key = secretKey(path);
    const { confirm } = this;
    const guessed = await this.changeGuessed(key, change);
    if (guessed) return guessed.value;
    let bytes = 0;
    let version = 0;
    const next = await mutate<SecretRecord>(
      this.part,
      key,
      async (current) => {
        await confirm?.(current !== undefined);
        const next = await change(current);
        if (next) bytes = checkSize(next);
        return next;
      },
      { attempts: 64, written: (v) => (version = v) },
    );
    if (next) this.remember(key, next, version, bytes);
    return next;
  }

  /**
   * A change's first attempt on the record this process last wrote, conditioned on its version:
   * undefined (then the record is read) when there is none, when it is stale, or when the change
   * writes nothing or refuses (a check-and-set, a missing version): decided on a guess, that
   * answer is not given before the record is read.
   */
  private async changeGuessed(key: string, change: RecordChange) {
    const ck = recordKey(this.part.name, key);
    const guess = this.cache.records.get(ck);
    if (!guess) return undefined;
    let next: SecretRecord | undefined;
    let bytes = 0;
    try {
      next = await change(guess.value);
      if (next) bytes = checkSize(next);
    } catch {
      return undefined;
    }
    if (!next) return undefined;
    await this.confirm?.(true);
    try {
      this.remember(key, next, await this.part.put(key, next, { ifVersion: guess.version }), bytes);
      return { value: next };
    } catch (e) {
      if (!(e instanceof ConflictError)) throw e;
      this.cache.records.delete(ck);
      return undefined;
    }
  }

  /** Keeps a record this process wrote (not the largest: MAX_CACHED_BYTES). */
  private remember(key: string, value: SecretRecord, version: number, bytes: number): void {
    const ck = recordKey(this.part.name, key);
    if (version > 0 && bytes <= MAX_CACHED_BYTES) this.cache.records.set(ck, { key, value, version });
    else this.cache.records.delete(ck);
  }

  async remove(path: string): Promise<void> {
    this.cache.records.delete(recordKey(this.part.name, secretKey(path)));
    await this.part.delete(secretKey(path));
  }

  /** Seals a version's data: scope the mount's partition, bound to the path and version. */
  seal(path: string, version: number, data: Record<string, unknown>): Promise<SealedValue> {
    return this.deps.sealer.seal(JSON.stringify(data), this.part.name, versionAad(path, version));
  }

  async open(path: string, version: number, sealed: SealedValue): Promise<Record<string, unknown>> {
    return JSON.parse(await this.deps.sealer.openText(sealed, versionAad(path, version))) as Record<string, unknown>;
  }

  // Version 1: the data alone, sealed.

  async readV1(path: string): Promise<Record<string, unknown> | undefined> {
    const item = await this.part.get<V1Record>(secretKey(path));
    if (!item) return undefined;
    return JSON.parse(await this.deps.sealer.openText(item.value.sealed, versionAad(path, 0))) as Record<string, unknown>;
  }

  async writeV1(path: string, data: Record<string, unknown>): Promise<void> {
    const record: V1Record = { sealed: await this.deps.sealer.seal(JSON.stringify(data), this.part.name, versionAad(path, 0)) };
    checkSize(record);
    await this.part.put(secretKey(path), record);
  }

  /**
   * The names one level under `folder` ("" or ending in "/"): secrets by name, sub-folders with a
   * trailing slash, in order, as Vault lists them.
   */
  async list(folder: string): Promise<string[]> {
    const prefix = secretKey(folder);
    const out = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(prefix, { ...(cursor ? { cursor } : {}) });
      for (const key of page.items) {
        const rest = key.slice(prefix.length);
        const slash = rest.indexOf('/');
        out.add(slash < 0 ? rest : rest.slice(0, slash + 1));
      }
      cursor = page.cursor;
    } while (cursor);
    return [...out].filter(Boolean).sort();
  }
}

const versionAad = (path: string, version: number) => `kv:${path}#${version}`;

/** The record's size as stored (JSON bytes); TooLarge over MAX_RECORD_BYTES. */
function checkSize(record: SecretRecord | V1Record): number {
  const bytes = Buffer.byteLength(JSON.stringify(record as Json));
  if (bytes > MAX_RECORD_BYTES)
    throw new TooLarge(
      `secret too large to store: its kept versions would take ${bytes} bytes sealed, over the ${MAX_RECORD_BYTES}-byte limit per secret; lower max_versions or store less`,
    );
  return bytes;
}

type RecordChange = (current: SecretRecord | undefined) => Promise<SecretRecord | undefined> | SecretRecord | undefined;
