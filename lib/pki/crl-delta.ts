/**
 * Delta CRLs (RFC 5280 5.2.4): the revocations since an issuer's complete CRL (its base), signed
 * by the issuer with the critical Delta CRL Indicator naming the base's CRL number. With
 * config/crl enable_delta, each revocation is also written to a write-ahead list
 * (`delta-wal/<serial>`, after its `revoked/<serial>`, as OpenBao's delta WAL) and the delta is
 * rebuilt at once, so every instance serves it as soon as the revocation is answered.
 *
 * Records (small, read without the complete CRL): `crl-base/<issuer id>` the number, times and
 * cutoff of the complete CRL in place; `crl-delta/<issuer id>` the delta; `crl-number/<issuer
 * id>` the one CRL number sequence complete and delta CRLs share (an atomic counter).
 *
 * A delta lists every list entry of its CRL group revoked at or after the base's cutoff (the
 * moment the base started reading the revoked index) less OVERLAP, so a revocation the base's
 * index read missed is still on the delta; an entry on both is harmless to relying parties.
 */
import { createHash } from 'node:crypto';
import type { Deps } from '../deps';
import type { SignatureAlgorithm, Signer } from '../keys/signer';
import { mutate, type Json, type Partition } from '../store/store';
import { buildCrl, type RevokedEntry } from './der/crl';
import type { PkiRepository } from './repository';
import type { RevokedRecord } from './storage';

/** How far before its base's cutoff a delta still lists revocations (the revoked index is eventually consistent). */
export const OVERLAP_MS = 5 * 60_000;

const WAL = 'delta-wal/';
export const baseKey = (issuerId: string) => `crl-base/${issuerId}`;
export const deltaKey = (issuerId: string) => `crl-delta/${issuerId}`;
export const numberKey = (issuerId: string) => `crl-number/${issuerId}`;

/** The complete CRL in place, as the delta and the schedule need it. Times in milliseconds. */
export type CrlBase = { [k: string]: Json; number: number; thisUpdate: number; nextUpdate: number; cutoff: number };

export type DeltaRecord = {
  [k: string]: Json;
  der: string;
  number: number;
  /** The base's CRL number. */
  base: number;
  builtAt: number;
  /** The listed serials and times, hashed: whether a rebuild would change anything. */
  digest: string;
};

/** What signing a CRL of an issuer takes (crl.ts makes it). */
export interface CrlSigning {
  issuerDer: Buffer;
  issuerKeyId: Buffer;
  signer: Signer;
  alg: SignatureAlgorithm;
  /** The ids of the issuers whose revocations the CRL lists. */
  group: Set<string>;
  /** Seconds a CRL is valid. */
  expiry: number;
  disable: boolean;
}

/** Records a revocation for the deltas; written after `revoked/<serial>`, never before. */
export async function writeDeltaWal(part: Partition, record: RevokedRecord): Promise<void> {
  await part.put(WAL + record.serial, record);
}

export async function hasDeltaWal(part: Partition, serial: string): Promise<boolean> {
  return (await part.get(WAL + serial)) !== undefined;
}

async function walRecords(part: Partition): Promise<RevokedRecord[]> {
  const out: RevokedRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await part.list<RevokedRecord>(WAL, { limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const i of page.items) out.push(i.value);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

/** The entries a delta on `base` lists for the group: revoked at or after base.cutoff - OVERLAP. */
export async function deltaEntries(repo: PkiRepository, group: Set<string>, base: CrlBase): Promise<RevokedRecord[]> {
  const since = base.cutoff - OVERLAP_MS;
  const out: RevokedRecord[] = [];
  for (const r of await walRecords(repo.part)) {
    if (r.revokedAt >= since && group.has(await repo.issuerIdOf(r))) out.push(r);
  }
  return out.sort((a, b) => a.revokedAt - b.revokedAt || (a.serial < b.serial ? -1 : 1));
}

export const digestOf = (entries: RevokedRecord[]) =>
  createHash('sha256')
    .update(entries.map((e) => `${e.serial}@${e.revokedAt}`).join(','))
    .digest('base64url');

export const entryOf = (r: RevokedRecord): RevokedEntry => ({
  serial: Buffer.from(r.serial, 'hex'),
  revokedAt: r.revokedAt,
  ...(r.reason ? { reason: r.reason } : {}),
});

/**
 * Builds and stores the delta on `base` under `number` (allocated before the list was read).
 * A stored delta of a higher number was allocated later and read the list later, so it stays.
 */
export async function buildAndStoreDelta(
  deps: Deps,
  repo: PkiRepository,
  issuerId: string,
  s: CrlSigning,
  base: CrlBase,
  number: number,
): Promise<Buffer> {
  const entries = s.disable ? [] : await deltaEntries(repo, s.group, base);
  const now = deps.now();
  let der = await buildCrl(
    {
      issuer: s.issuerDer,
      issuerKeyId: s.issuerKeyId,
      thisUpdate: now,
      nextUpdate: now + s.expiry * 1000,
      number,
      revoked: entries.map(entryOf),
      deltaBase: base.number,
    },
    s.signer,
    s.alg,
  );
  const record: DeltaRecord = { der: der.toString('base64'), number, base: base.number, builtAt: now, digest: digestOf(entries) };
  await mutate<DeltaRecord>(repo.part, deltaKey(issuerId), (current) => {
    if (current && current.number > number) {
      der = Buffer.from(current.der, 'base64');
      return undefined;
    }
    return record;
  });
  return der;
}

export async function deltaRecord(part: Partition, issuerId: string): Promise<DeltaRecord | undefined> {
  return (await part.get<DeltaRecord>(deltaKey(issuerId)))?.value;
}

export async function crlBase(part: Partition, issuerId: string): Promise<CrlBase | undefined> {
  return (await part.get<CrlBase>(baseKey(issuerId)))?.value;
}

/** Removes list entries revoked before `before` (no delta on any base in place lists them); all when `before` is Infinity. */
export async function pruneDeltaWal(part: Partition, before: number): Promise<number> {
  const old = (await walRecords(part)).filter((r) => r.revokedAt < before).map((r) => WAL + r.serial);
  for (let i = 0; i < old.length; i += 25) await part.batchDelete(old.slice(i, i + 25));
  return old.length;
}
