/**
 * The storage migrations of a PKI mount, versioned and run on first use (repository.ts `ready`).
 *
 * Version 1 kept one CA per mount (`ca/current`, `ca/pending`, `crl/current`); version 2 keeps
 * issuers and keys as their own records (storage.ts). The step from 1 to 2 is idempotent and
 * crash-safe: the new records get ids derived from the old ones (the same store always yields
 * the same ids), every write is a plain put of a value it derives, and the version marker is
 * written last, so a process killed half-way leaves a store the next first use finishes
 * migrating. The old records are left as they were: a previous release still running during a
 * rolling deploy reads its CA from them. Certificates and revocations of version 1 carry no
 * issuer id: they belong to the migrated CA (`legacyIssuer` in the marker).
 */
import { createHash } from 'node:crypto';
import { ExistsError } from '../domain-errors';
import type { Json, Partition } from '../store/store';
import { caIdOf } from './issuer-id';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import { colonSerial } from './serial';
import {
  ISSUER_USAGES,
  type CaRecord,
  type IssuerRecord,
  type IssuersConfig,
  type KeyRecord,
  type KeyRef,
  type KeysConfig,
  type PendingRecord,
  type StorageMeta,
} from './storage';

export const STORAGE_VERSION = 2;
export const META_KEY = 'meta/storage';

/** A uuid-shaped id derived from `bytes` under `kind`: the same bytes always give the same id. */
export function derivedId(kind: string, bytes: Buffer): string {
  const h = createHash('sha256').update(kind).update(bytes).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The key of a version-1 record, as a key record (its sealed material keeps the additional data it was sealed with). */
function keyRecordOf(ref: KeyRef, spki: Buffer, keyType: string, keyBits: number, aad: string): KeyRecord {
  const id = derivedId('key', spki);
  return { id, name: '', type: keyType, bits: keyBits, spki: spki.toString('base64'), ref: ref.kind === 'local' ? { ...ref, aad } : ref };
}

/** A new issuer record of every default (all usages, the mount's URLs). */
export function issuerRecord(
  fields: Pick<IssuerRecord, 'id' | 'certificate' | 'keyId' | 'caChain' | 'serial' | 'createdAt'> & Partial<IssuerRecord>,
): IssuerRecord {
  return {
    name: '',
    manualChain: [],
    usage: [...ISSUER_USAGES],
    leafNotAfterBehavior: 'err',
    revocationSignatureAlgorithm: '',
    issuingCertificates: [],
    crlDistributionPoints: [],
    ocspServers: [],
    enableAiaUrlTemplating: false,
    ...fields,
  };
}

/** What the migration needs to know of a sealed key whose public key is not on record (opened by the repository). */
export type KeyInfo = (ref: KeyRef, aad: string) => Promise<{ spki: Buffer; keyType: string; keyBits: number }>;

/**
 * Writes a migrated record unless it is there: an instance that migrated first (and may have
 * changed it since: a revocation's CRL, a new default) is never overwritten by a slower one.
 */
async function putIfAbsent(part: Partition, key: string, value: Json): Promise<void> {
  try {
    await part.put(key, value, { ifAbsent: true });
  } catch (e) {
    if (!(e instanceof ExistsError)) throw e;
  }
}

/** Version 1 to 2: the CA becomes an issuer (the default), its key a key; a pending key a key. */
async function toVersion2(part: Partition, now: number, keyInfo: KeyInfo): Promise<StorageMeta> {
  const ca = (await part.get<CaRecord>('ca/current'))?.value;
  const meta: StorageMeta = { version: 2 };
  if (ca?.certificate) {
    const cert = parseCertificate(onePem(ca.certificate, ['CERTIFICATE'], 'the CA certificate'));
    const key = ca.key ? keyRecordOf(ca.key, cert.spki, cert.keyType, cert.keyBits, 'ca-key') : undefined;
    const id = derivedId('issuer', cert.der);
    if (key) await putIfAbsent(part, `key/${key.id}`, key);
    await putIfAbsent(
      part,
      `issuer/${id}`,
      issuerRecord({
        id,
        certificate: ca.certificate,
        keyId: key?.id ?? '',
        caChain: ca.chain,
        serial: colonSerial(cert.serial),
        createdAt: now,
      }),
    );
    // The CRL of version 1 is the CA's only if it was built for it (a CA replaced since has a stale one: rebuilt on first need).
    const crl = await part.get<{ ca?: string } & Json>('crl/current');
    if (crl && crl.value.ca === colonSerial(cert.serial)) await putIfAbsent(part, `crl/${id}`, crl.value);
    await putIfAbsent(part, 'config/issuers', { default: id, defaultFollowsLatestIssuer: false } satisfies IssuersConfig);
    if (key) await putIfAbsent(part, 'config/keys', { default: key.id } satisfies KeysConfig);
    meta.legacyIssuer = id;
    // Version-1 records name their issuer by name and key id: only the migrated CA's are its.
    meta.legacyCaId = caIdOf(cert);
  }
  const pending = (await part.get<PendingRecord>('ca/pending'))?.value;
  if (pending) {
    // intermediate/generate's waiting key: a key record that set-signed finds by its public key.
    const info = await keyInfo(pending.key, 'ca-pending');
    const key = keyRecordOf(pending.key, info.spki, info.keyType, info.keyBits, 'ca-pending');
    await putIfAbsent(part, `key/${key.id}`, key);
  }
  return meta;
}

/** Brings the partition to STORAGE_VERSION; returns its marker. Safe to run again at any point. */
export async function migrate(part: Partition, now: number, keyInfo: KeyInfo): Promise<StorageMeta> {
  const current = (await part.get<StorageMeta>(META_KEY))?.value;
  if (current && current.version >= STORAGE_VERSION) return current;
  const meta = await toVersion2(part, now, keyInfo);
  await putIfAbsent(part, META_KEY, meta);
  return (await part.get<StorageMeta>(META_KEY))?.value ?? meta;
}
