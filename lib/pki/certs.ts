/** Certificate records: one item per serial, indexed by expiry. */
import type { Json, Partition } from '../store/store';
import { serialKey } from './serial';
import { CERT_INDEX, expiryIndexSort, type CertRecord } from './storage';

export const certKey = (serial: Buffer) => `cert/${serialKey(serial)}`;

export async function storeCertificate(part: Partition, serial: Buffer, der: Buffer, notAfter: number): Promise<void> {
  const record: CertRecord = { der: der.toString('base64'), notAfter };
  await part.put(certKey(serial), record as unknown as Json, { index: { name: CERT_INDEX, sort: expiryIndexSort(notAfter, serialKey(serial)) } });
  await part.increment('count/certs', 1);
}

export async function readCertificate(part: Partition, serial: Buffer): Promise<CertRecord | undefined> {
  return (await part.get<CertRecord>(certKey(serial)))?.value;
}
