/**
 * Revoking SSH certificates and the mount's KRL. A certificate is revoked by its serial (a
 * recorded certificate), by key id (every recorded certificate carrying it) or by the
 * certificate itself (which must be signed by an issuer of this mount; recorded or not, so
 * a no_store role's certificates can be revoked too). The KRL is built per request from a
 * consistent read of the revocations, so it names every revocation acknowledged before it.
 */
import { metrics, mountOf } from '../metrics/catalog';
import { InvalidInput, NotFoundError } from '../domain-errors';
import { signedBy, parseCertificate } from './cert-parse';
import { CertRecords, serialHex, type CertRecord, type RevokedRecord } from './cert-records';
import { issuerIdOf, type LoadedIssuer } from './issuer-store';
import { encodeKrl, type KrlCaSection } from './krl';
import type { Signed } from './sign';
import type { SshStore } from './ssh-store';
import type { TransactWrite } from '../store/store';

/** At most this many certificates are revoked by one key_id request. */
export const MAX_KEY_ID_REVOCATIONS = 1000;
/** Expired records a revocation tidies on its way (the rest wait for ssh/tidy). */
const TIDY_ON_REVOKE = 25;
export const DEFAULT_SAFETY_BUFFER_SECONDS = 72 * 3600;

/** What a certificate's lease holds: the serial of its record (none: not recorded, nothing to revoke). */
export type CertRevoke = { kind: 'cert'; serial?: string };

export interface Revoked {
  serial: bigint;
  keyId: string;
  issuerId: string;
  /** Milliseconds; the first revocation's time when it was revoked already. */
  revokedAt: number;
}

const issuerIdOfBlob = (blob: Buffer) => issuerIdOf(`x ${blob.toString('base64')}`);

/** A serial as `ssh-keygen -L` shows it (decimal), or hex with 0x; InvalidInput otherwise. */
export function parseSerialNumber(text: string): bigint {
  const t = text.trim();
  const ok = /^[0-9]{1,20}$/.test(t) || /^0x[0-9a-fA-F]{1,16}$/.test(t);
  const n = ok ? BigInt(t) : -1n;
  if (n < 0n || n > 0xffff_ffff_ffff_ffffn) {
    throw new InvalidInput('serial_number must be a certificate serial: a decimal number below 2^64 (or hex with 0x)');
  }
  return n;
}

/** The writes that record a signed certificate (sign and issue, unless the role says no_store), made with its lease. */
export function signedRecordWrites(records: CertRecords, signed: Signed, ca: LoadedIssuer): TransactWrite[] {
  const c = signed.cert;
  return records.addWrites({
    serial: serialHex(c.serial),
    keyId: c.keyId,
    principals: c.principals,
    certType: c.certType,
    validAfter: Number(c.validAfter),
    validBefore: Number(c.validBefore),
    caKey: ca.blob.toString('base64'),
    issuerId: ca.id,
  });
}

async function revokeRecord(
  records: CertRecords,
  c: Omit<CertRecord, 'principals' | 'certType' | 'validAfter'>,
  nowMs: number,
): Promise<Revoked> {
  const r: RevokedRecord = {
    serial: c.serial,
    keyId: c.keyId,
    validBefore: c.validBefore,
    caKey: c.caKey,
    issuerId: c.issuerId,
    revokedAt: nowMs,
  };
  const { revokedAt, added } = await records.revoke(r);
  if (added) metrics.ssh.revoked.inc({ mount: mountOf(records.part.name) });
  if (added) await records.tidy(Math.floor(nowMs / 1000) - DEFAULT_SAFETY_BUFFER_SECONDS, TIDY_ON_REVOKE);
  return { serial: BigInt(`0x${c.serial}`), keyId: c.keyId, issuerId: c.issuerId, revokedAt };
}

/** Revokes the recorded certificate with this serial; NotFoundError when none is on record. */
export async function revokeSerial(records: CertRecords, serial: bigint, nowMs: number): Promise<Revoked> {
  const cert = await records.get(serialHex(serial));
  if (!cert)
    throw new NotFoundError(
      `no certificate with serial number ${serial} is on record (certificates of no_store roles: revoke with certificate)`,
    );
  return revokeRecord(records, cert, nowMs);
}

/**
 * A certificate's lease revoked: its certificate is revoked too, unless it has expired (the
 * sweeper revokes a lease when it expires, with its certificate) or was never recorded.
 */
export async function revokeLeased(records: CertRecords, r: CertRevoke, nowMs: number): Promise<void> {
  if (!r.serial) return;
  const cert = await records.get(r.serial);
  if (!cert || cert.validBefore <= Math.floor(nowMs / 1000)) return;
  await revokeRecord(records, cert, nowMs);
}

/** Revokes every recorded certificate carrying `keyId`; NotFoundError when none does. */
export async function revokeKeyId(records: CertRecords, keyId: string, nowMs: number): Promise<Revoked[]> {
  if (!keyId) throw new InvalidInput('key_id must not be empty');
  if (keyId.length > 4096) throw new InvalidInput('key_id is too long (4096 characters at most)');
  const certs = await records.withKeyId(keyId, MAX_KEY_ID_REVOCATIONS);
  if (certs.length === 0) throw new NotFoundError('no certificate with this key_id is on record');
  const out: Revoked[] = [];
  for (const c of certs) out.push(await revokeRecord(records, c, nowMs));
  return out;
}

/** Revokes a certificate given whole; it must be signed by one of this mount's issuers. */
export async function revokeCertificate(ssh: SshStore, records: CertRecords, text: string, nowMs: number): Promise<Revoked> {
  const cert = parseCertificate(text);
  const issuers = await ssh.issuers();
  const issuerId = issuerIdOfBlob(cert.caKey);
  const issuer = await issuers.issuer(issuerId);
  if (!issuer) throw new InvalidInput('the certificate was not signed by an issuer of this mount');
  if (!signedBy(cert, (await issuers.signer(issuer)).key))
    throw new InvalidInput("the certificate's signature does not verify under its issuer's key");
  return revokeRecord(
    records,
    {
      serial: serialHex(cert.serial),
      keyId: cert.keyId,
      validBefore: Number(cert.validBefore > 99_999_999_999_999n ? 99_999_999_999_999n : cert.validBefore),
      caKey: cert.caKey.toString('base64'),
      issuerId,
    },
    nowMs,
  );
}

/** The mount's KRL: one certificates section per CA key with revocations. */
export async function buildKrl(records: CertRecords, comment: string, nowMs: number): Promise<Buffer> {
  const { version, revoked } = await records.revocations();
  const byCa = new Map<string, KrlCaSection>();
  for (const r of revoked) {
    let s = byCa.get(r.caKey);
    if (!s) byCa.set(r.caKey, (s = { caKey: Buffer.from(r.caKey, 'base64'), serials: [] }));
    s.serials.push(BigInt(`0x${r.serial}`));
  }
  const sections = [...byCa.values()].sort((a, b) => Buffer.compare(a.caKey, b.caKey));
  return encodeKrl({ version: BigInt(version), generatedAt: BigInt(Math.floor(nowMs / 1000)), comment, sections });
}

/** Deletes the records (certificates, revocations) of certificates expired more than `safetyBuffer` seconds ago; how many. */
export async function tidyCertificates(records: CertRecords, nowMs: number, safetyBuffer: number): Promise<number> {
  const before = Math.floor(nowMs / 1000) - safetyBuffer;
  let total = 0;
  // Bounded: the index is eventually consistent, so a page may show items already deleted.
  for (let page = 0; page < 1000; page++) {
    const n = await records.tidy(before, 100);
    total += n;
    if (n < 100) break;
  }
  return total;
}
