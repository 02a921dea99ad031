/**
 * The records of a KV version 2 secret and the pure rules over them: one record per secret holds
 * its metadata and every kept version (each version's data sealed), so a write, its check-and-set
 * and the trimming of versions beyond `max_versions` are one conditional write of one record.
 * Times are milliseconds since the epoch inside, RFC 3339 on the wire.
 */
import { InvalidInput } from '../domain-errors';
import type { SealedValue } from '../keys/sealed';

/** Vault's default number of versions kept when neither the secret nor the mount sets one. */
export const DEFAULT_MAX_VERSIONS = 10;

export type KvConfig = {
  maxVersions: number;
  casRequired: boolean;
  /** Seconds; 0: versions are kept until deleted. */
  deleteVersionAfter: number;
};

export const DEFAULT_CONFIG: KvConfig = { maxVersions: 0, casRequired: false, deleteVersionAfter: 0 };

export type VersionRecord = {
  created: number;
  /** When the version is (or was) deleted; null when not. */
  deletion: number | null;
  destroyed: boolean;
  /** The version's data, sealed; absent once destroyed. */
  sealed?: SealedValue;
};

export type SecretRecord = {
  created: number;
  updated: number;
  currentVersion: number;
  oldestVersion: number;
  maxVersions: number;
  casRequired: boolean;
  deleteVersionAfter: number;
  customMetadata: Record<string, string> | null;
  versions: Record<string, VersionRecord>;
};

export function newSecret(now: number): SecretRecord {
  return {
    created: now,
    updated: now,
    currentVersion: 0,
    oldestVersion: 0,
    maxVersions: 0,
    casRequired: false,
    deleteVersionAfter: 0,
    customMetadata: null,
    versions: {},
  };
}

/** Whether a version reads as deleted at `now` (a deletion time in the past, as Vault decides). */
export function isDeleted(v: VersionRecord, now: number): boolean {
  return v.deletion !== null && v.deletion <= now;
}

/**
 * The check-and-set rule: `cas` given must equal the current version (0: the secret has none
 * yet); without it, a write is refused where the mount or the secret requires one.
 */
export function checkCas(secret: SecretRecord | undefined, config: KvConfig, cas: number | undefined): void {
  const current = secret?.currentVersion ?? 0;
  if (cas !== undefined) {
    if (cas !== current) throw new InvalidInput('check-and-set parameter did not match the current version');
  } else if (config.casRequired || secret?.casRequired) {
    throw new InvalidInput('check-and-set parameter required for this call');
  }
}

/** When a version written at `created` is deleted: the smaller non-zero delete_version_after of the mount and the secret. */
export function deletionTimeOf(created: number, config: KvConfig, secret: SecretRecord): number | null {
  const set = [config.deleteVersionAfter, secret.deleteVersionAfter].filter((s) => s > 0);
  return set.length ? created + Math.min(...set) * 1000 : null;
}

/** The number of versions kept: the secret's, else the mount's, else Vault's default of 10. */
export function maxVersionsOf(secret: SecretRecord, config: KvConfig): number {
  return secret.maxVersions > 0 ? secret.maxVersions : config.maxVersions > 0 ? config.maxVersions : DEFAULT_MAX_VERSIONS;
}

/** Adds the next version and drops the oldest beyond max_versions, in the same record. */
export function addVersion(secret: SecretRecord, config: KvConfig, now: number, sealed: SealedValue): SecretRecord {
  const version = secret.currentVersion + 1;
  const versions = {
    ...secret.versions,
    [version]: { created: now, deletion: deletionTimeOf(now, config, secret), destroyed: false, sealed },
  };
  const next = { ...secret, currentVersion: version, updated: now, versions };
  return trim(next, maxVersionsOf(next, config));
}

/**
 * Vault's sliding window: once current_version - oldest_version reaches max_versions, the versions
 * up to current - max are removed and oldest_version moves past them (it stays 0 until then).
 */
export function trim(secret: SecretRecord, max: number): SecretRecord {
  if (secret.currentVersion - secret.oldestVersion < max) return secret;
  const last = secret.currentVersion - max;
  const versions = Object.fromEntries(Object.entries(secret.versions).filter(([n]) => Number(n) > last));
  return { ...secret, versions, oldestVersion: last + 1 };
}

/** Applies `change` to each named version that exists; unknown version numbers are skipped, as Vault skips them. */
export function changeVersions(secret: SecretRecord, numbers: number[], change: (v: VersionRecord) => VersionRecord): SecretRecord {
  const versions = { ...secret.versions };
  for (const n of numbers) {
    const v = versions[n];
    if (v) versions[n] = change(v);
  }
  return { ...secret, versions };
}

/** The limits Vault puts on custom_metadata: 64 keys, keys up to 128 bytes, values up to 512, printable. */
export function checkCustomMetadata(meta: Record<string, string>): void {
  const keys = Object.keys(meta);
  if (keys.length > 64)
    throw new InvalidInput(`custom_metadata validation failed: payload must contain at most 64 keys, provided ${keys.length}`);
  for (const [k, v] of Object.entries(meta)) {
    const kl = Buffer.byteLength(k);
    const vl = Buffer.byteLength(v);
    if (kl === 0 || kl > 128)
      throw new InvalidInput(
        `custom_metadata validation failed: length of key ${JSON.stringify(k)} is ${kl} but must be 0 < len(key) <= 128`,
      );
    if (vl === 0 || vl > 512)
      throw new InvalidInput(
        `custom_metadata validation failed: length of value for key ${JSON.stringify(k)} is ${vl} but must be 0 < len(value) <= 512`,
      );
    if (/[\u0000-\u001f\u007f]/.test(k) || /[\u0000-\u001f\u007f]/.test(v))
      throw new InvalidInput(`custom_metadata validation failed: key ${JSON.stringify(k)} or its value contains unprintable characters`);
  }
}
