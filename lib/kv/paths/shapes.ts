/**
 * The wire shapes of KV version 2's answers, as Vault's kv plugin writes them: RFC 3339 times
 * ("" when unset), durations in Go's form ("30m0s"), versions keyed by their number as a string.
 */
import { formatDuration } from '../../duration';
import { HttpError } from '../../errors';
import type { KvConfig, SecretRecord, VersionRecord } from '../records';
import { TooLarge } from '../kv-store';

export const time = (ms: number | null | undefined): string => (ms === null || ms === undefined ? '' : new Date(ms).toISOString());

/** A version's metadata, as data reads and writes answer it. */
export function versionMeta(version: number, v: VersionRecord, secret: SecretRecord): Record<string, unknown> {
  return {
    created_time: time(v.created),
    custom_metadata: secret.customMetadata,
    deletion_time: time(v.deletion),
    destroyed: v.destroyed,
    version,
  };
}

export function secretMetadata(secret: SecretRecord): Record<string, unknown> {
  const versions = Object.fromEntries(
    Object.entries(secret.versions).map(([n, v]) => [
      n,
      { created_time: time(v.created), deletion_time: time(v.deletion), destroyed: v.destroyed },
    ]),
  );
  return {
    cas_required: secret.casRequired,
    created_time: time(secret.created),
    current_version: secret.currentVersion,
    custom_metadata: secret.customMetadata,
    delete_version_after: formatDuration(secret.deleteVersionAfter),
    max_versions: secret.maxVersions,
    oldest_version: secret.oldestVersion,
    updated_time: time(secret.updated),
    versions,
  };
}

export function configShape(c: KvConfig): Record<string, unknown> {
  return { cas_required: c.casRequired, delete_version_after: formatDuration(c.deleteVersionAfter), max_versions: c.maxVersions };
}

/** Runs a storing step; a record too large to keep is 413 naming the limit. */
export async function storing<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (e) {
    if (e instanceof TooLarge) throw new HttpError(413, [e.message]);
    throw e;
  }
}

/** A LIST's folder as Vault takes it: the path with a trailing slash ("" for the top). */
export const folderOf = (path: string | undefined): string => (!path ? '' : path.endsWith('/') ? path : `${path}/`);
