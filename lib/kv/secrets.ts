/**
 * KV version 2's operations on one secret, over KvStore: read a version, write (check-and-set,
 * trimming), patch (JSON merge patch of the current version), soft delete, undelete, destroy,
 * metadata. No HTTP here: a miss is `undefined` or NotFoundError, bad input InvalidInput.
 */
import { InvalidInput, NotFoundError } from '../domain-errors';
import { mergePatch } from './merge-patch';
import type { KvStore } from './kv-store';
import {
  addVersion,
  changeVersions,
  checkCas,
  isDeleted,
  newSecret,
  type KvConfig,
  type SecretRecord,
  type VersionRecord,
} from './records';

export type VersionRead =
  | { kind: 'data'; version: number; meta: VersionRecord; data: Record<string, unknown>; secret: SecretRecord }
  /** Deleted or destroyed: Vault answers the metadata with a 404. */
  | { kind: 'gone'; version: number; meta: VersionRecord; secret: SecretRecord };

export type Written = { version: number; meta: VersionRecord; secret: SecretRecord };

export class KvSecrets {
  constructor(
    private readonly store: KvStore,
    private readonly now: () => number,
  ) {}

  /** A version (the current one unless `version` > 0), or undefined when the secret or version is not there. */
  async read(path: string, version = 0): Promise<VersionRead | undefined> {
    const secret = await this.store.secret(path);
    if (!secret) return undefined;
    const n = version > 0 ? version : secret.currentVersion;
    const meta = secret.versions[n];
    if (!meta) return undefined;
    if (isDeleted(meta, this.now()) || meta.destroyed || !meta.sealed) return { kind: 'gone', version: n, meta, secret };
    return { kind: 'data', version: n, meta, secret, data: await this.store.open(path, n, meta.sealed) };
  }

  async write(path: string, data: Record<string, unknown>, cas: number | undefined): Promise<Written> {
    const config = await this.store.config({ fresh: false });
    const next = await this.store.change(path, async (current) => {
      checkCas(current, config, cas);
      const secret = current ?? newSecret(this.now());
      return addVersion(secret, config, this.now(), await this.store.seal(path, secret.currentVersion + 1, data));
    });
    return written(next!);
  }

  /** Merges `patch` into the current version as a new version; NotFoundError when there is none to patch. */
  async patch(path: string, patch: Record<string, unknown>, cas: number | undefined): Promise<Written> {
    const config = await this.store.config({ fresh: false });
    const next = await this.store.change(path, async (current) => {
      if (!current) throw new NotFoundError('no secret at this path; patch only works on existing data');
      checkCas(current, config, cas);
      const meta = current.versions[current.currentVersion];
      if (!meta?.sealed || meta.destroyed || isDeleted(meta, this.now()))
        throw new NotFoundError('the current version is deleted or destroyed; patch only works on existing data');
      const data = mergePatch(await this.store.open(path, current.currentVersion, meta.sealed), patch);
      return addVersion(current, config, this.now(), await this.store.seal(path, current.currentVersion + 1, data));
    });
    return written(next!);
  }

  /** Soft-deletes the current version (nothing to do when it is gone already). */
  async deleteLatest(path: string): Promise<void> {
    await this.store.change(path, (current) => {
      const meta = current?.versions[current.currentVersion];
      if (!current || !meta || meta.destroyed || isDeleted(meta, this.now())) return undefined;
      return changeVersions(current, [current.currentVersion], (v) => ({ ...v, deletion: this.now() }));
    });
  }

  async deleteVersions(path: string, versions: number[]): Promise<void> {
    await this.store.change(path, (current) =>
      current
        ? changeVersions(current, versions, (v) => (v.destroyed || isDeleted(v, this.now()) ? v : { ...v, deletion: this.now() }))
        : undefined,
    );
  }

  /** Undeletes versions that are deleted but not destroyed. */
  async undeleteVersions(path: string, versions: number[]): Promise<void> {
    await this.store.change(path, (current) =>
      current ? changeVersions(current, versions, (v) => (v.destroyed ? v : { ...v, deletion: null })) : undefined,
    );
  }

  /** Destroys versions: their sealed data is removed from the record for good. */
  async destroyVersions(path: string, versions: number[]): Promise<void> {
    await this.store.change(path, (current) =>
      current ? changeVersions(current, versions, ({ created, deletion }) => ({ created, deletion, destroyed: true })) : undefined,
    );
  }

  async metadata(path: string): Promise<SecretRecord | undefined> {
    return this.store.secret(path);
  }

  /** Sets the secret's metadata settings named in `settings`, creating the secret's record when absent. */
  async writeMetadata(path: string, settings: MetadataSettings, mustExist = false): Promise<void> {
    await this.store.change(path, (current) => {
      if (!current && mustExist) throw new NotFoundError('no metadata at this path to patch');
      const secret = current ?? newSecret(this.now());
      return { ...secret, ...definedOnly(settings), updated: current ? this.now() : secret.updated };
    });
  }

  async destroyAll(path: string): Promise<void> {
    await this.store.remove(path);
  }
}

export type MetadataSettings = Partial<Pick<SecretRecord, 'maxVersions' | 'casRequired' | 'deleteVersionAfter' | 'customMetadata'>>;

function definedOnly(s: MetadataSettings): MetadataSettings {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as MetadataSettings;
}

function written(secret: SecretRecord): Written {
  const version = secret.currentVersion;
  return { version, meta: secret.versions[version]!, secret };
}

/** Version numbers as Vault takes them: a non-empty list of positive integers. */
export function versionNumbers(raw: unknown, missing: string): number[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' && raw !== '' ? raw.split(',') : typeof raw === 'number' ? [raw] : [];
  if (!list.length) throw new InvalidInput(missing);
  return list.map((x) => {
    const n = typeof x === 'number' ? x : typeof x === 'string' && /^\s*\d+\s*$/.test(x) ? Number(x) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidInput(`versions: expected version numbers, not ${JSON.stringify(x)}`);
    return n;
  });
}

export type { KvConfig };
