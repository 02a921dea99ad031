/**
 * The storage migration of an SSH mount, run on first use (SshStore.issuers()).
 *
 * Version 1 kept one CA key pair in `config/ca`; version 2 keeps issuers (issuer-store.ts). The
 * step is idempotent and crash-safe: the issuer record is written first under an id derived from
 * the public key (a re-run writes the same issuer, and a conditional write keeps the first), then
 * the default pointer, then the version marker, so a process killed at any point leaves a store
 * the next first use finishes migrating. `config/ca` is left as it was: a previous release still
 * running during a rolling deploy signs with it. If such a release writes a new `config/ca`
 * meanwhile (its "replace the CA"), the marker no longer names that key and the next check takes
 * it in as a new issuer and makes it the default, as OpenBao's migration does when the hash of the
 * old key material changes.
 */
import { isSealed } from '../keys/sealed';
import { issuerIdOf, LEGACY_SEALED_AT, STORAGE_VERSION, type IssuerStore, type LegacyCa, type StorageMeta } from './issuer-store';

/** The issuer id of version 1's CA record, or '' when it holds no key pair. */
export function legacyIssuerId(legacy: LegacyCa | undefined): string {
  return legacy?.public_key && isSealed(legacy.private_key) ? issuerIdOf(legacy.public_key) : '';
}

/** Brings the mount's storage to STORAGE_VERSION; answers its marker. Safe to run again at any point. */
export async function migrateIssuers(store: IssuerStore): Promise<StorageMeta> {
  const [meta, legacy, pointer] = await Promise.all([store.meta(), store.legacyCa(), store.defaultItem()]);
  const legacyCa = legacyIssuerId(legacy);
  if (meta && meta.version >= STORAGE_VERSION && meta.legacyCa === legacyCa) return meta;
  if (legacy && legacyCa) {
    // The sealed key is copied as it is: it still opens with the additional data it was sealed with.
    await store.add({ id: legacyCa, name: '', publicKey: legacy.public_key, privateKey: legacy.private_key, sealedAt: LEGACY_SEALED_AT });
    // A default written since the read above is a concurrent migration's (the same id) or an operator's: either stands.
    if (pointer?.value.default !== legacyCa) await store.setDefaultIfUnchanged(legacyCa, pointer);
  }
  const next: StorageMeta = { version: STORAGE_VERSION, legacyCa };
  await store.putMeta(next);
  return next;
}
