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
import { InvalidInput } from '../domain-errors';
import type { SealedValue } from '../keys/sealed';
import { mutate, type Json, type Partition } from '../store/store';
import { DEFAULT_CONFIG, type KvConfig, type SecretRecord } from './records';

/** The most a secret's record may hold, all kept versions sealed (base64): 8 MiB. */
export const MAX_RECORD_BYTES = 8 * 1024 * 1024;

/** A record too large to keep (the edge answers 413). */
export class TooLarge extends InvalidInput {}

type V1Record = { sealed: SealedValue };

export const secretKey = (path: string) => `s/${path}`;
/** Version 2's mount settings. */
export const CONFIG_KEY = 'config';

export class KvStore {
  constructor(
    private readonly deps: Pick<Deps, 'sealer'>,
    readonly part: Partition,
  ) {}

  async config(): Promise<KvConfig> {
    return (await this.part.get<KvConfig>(CONFIG_KEY))?.value ?? DEFAULT_CONFIG;
  }

  async putConfig(config: KvConfig): Promise<void> {
    await this.part.put(CONFIG_KEY, config);
  }

  async secret(path: string): Promise<SecretRecord | undefined> {
    return (await this.part.get<SecretRecord>(secretKey(path)))?.value;
  }

  async exists(path: string): Promise<boolean> {
    return (await this.part.get(secretKey(path))) !== undefined;
  }

  /** Read-modify-write of one secret's record; `change` returning undefined writes nothing. */
  async change(
    path: string,
    change: (current: SecretRecord | undefined) => Promise<SecretRecord | undefined> | SecretRecord | undefined,
  ): Promise<SecretRecord | undefined> {
    return mutate<SecretRecord>(
      this.part,
      secretKey(path),
      async (current) => {
        const next = await change(current);
        if (next) checkSize(next);
        return next;
      },
      { attempts: 64 },
    );
  }

  async remove(path: string): Promise<void> {
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

function checkSize(record: SecretRecord | V1Record): void {
  const bytes = Buffer.byteLength(JSON.stringify(record as Json));
  if (bytes > MAX_RECORD_BYTES)
    throw new TooLarge(
      `secret too large to store: its kept versions would take ${bytes} bytes sealed, over the ${MAX_RECORD_BYTES}-byte limit per secret; lower max_versions or store less`,
    );
}
