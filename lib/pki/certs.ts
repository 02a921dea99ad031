/** Certificate records: one item per serial, indexed by expiry. */
import type { Partition } from '../store/store';
import { serialKey } from './serial';
import { CERT_INDEX, expiryIndexSort, type CertRecord } from './storage';

export const certKey = (serial: Buffer) => `cert/${serialKey(serial)}`;

/**
 * The stored-certificate count, spread over shards: one DynamoDB item takes about 1,000 writes
 * a second, and every stored issue counts one. `count/certs` alone is the unsharded count of
 * earlier versions, still summed in.
 */
const COUNT_SHARDS = 16;
const COUNT_KEYS = ['count/certs', ...Array.from({ length: COUNT_SHARDS }, (_, i) => `count/certs/${i}`)];

export async function countCertificates(part: Partition, delta: number): Promise<void> {
  await part.increment(COUNT_KEYS[1 + Math.floor(Math.random() * COUNT_SHARDS)]!, delta);
}

/** The stored-certificate count (informational: tidy's progress messages and totals). */
export async function certificateCount(part: Partition): Promise<number> {
  const shards = await Promise.all(COUNT_KEYS.map((k) => part.increment(k, 0)));
  return Math.max(
    0,
    shards.reduce((a, b) => a + b, 0),
  );
}

export async function storeCertificate(part: Partition, serial: Buffer, der: Buffer, notAfter: number): Promise<void> {
  const record: CertRecord = { der: der.toString('base64'), notAfter };
  // Together (the count is informational): on the embedded store one fsynced batch, not two in a row.
  await Promise.all([
    part.put(certKey(serial), record, { index: { name: CERT_INDEX, sort: expiryIndexSort(notAfter, serialKey(serial)) } }),
    countCertificates(part, 1),
  ]);
}

export async function readCertificate(part: Partition, serial: Buffer): Promise<CertRecord | undefined> {
  return (await part.get<CertRecord>(certKey(serial)))?.value;
}
