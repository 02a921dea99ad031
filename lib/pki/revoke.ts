/**
 * Revocation: idempotent (a second call returns the first time), refused for the CA's own
 * serial, written ahead of the CRL rebuild so a crash leaves a revocation the next rebuild
 * picks up.
 */
import type { Deps } from '../deps';
import { ExistsError, InvalidInput, NotFoundError } from '../domain-errors';
import { mutate, type Partition } from '../store/store';
import { certKey } from './certs';
import { rebuildCrl } from './crl';
import { readCa } from './issuer';
import { issuerIdOf } from './issuer-id';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import { serialKey } from './serial';
import { expiryIndexSort, REVOKED_INDEX, type CertRecord, type RevokedRecord } from './storage';

/** `reason`: an RFC 5280 CRLReason for the CRL entry (0: unspecified, none written). Returns the revocation time in milliseconds (the first one when already revoked); NotFoundError when no such certificate is stored. */
export async function revokeSerial(deps: Deps, part: Partition, serial: Buffer, reason = 0): Promise<number> {
  const key = serialKey(serial);
  const ca = await readCa(part);
  if (ca?.certificate && serialKey(parseCertificate(onePem(ca.certificate, ['CERTIFICATE'], 'the CA certificate')).serial) === key) {
    throw new InvalidInput('adding issuer (id: default) to its own CRL is not allowed');
  }
  const cert = await part.get<CertRecord>(certKey(serial));
  if (!cert) throw new NotFoundError(`certificate with serial ${key.match(/../g)?.join(':') ?? key} not found`);
  const issuer = issuerIdOf(parseCertificate(Buffer.from(cert.value.der, 'base64')));
  const record: RevokedRecord = {
    serial: key,
    revokedAt: deps.now(),
    notAfter: cert.value.notAfter,
    issuer,
    ...(reason ? { reason } : {}),
  };
  try {
    await part.put(`revoked/${key}`, record, {
      ifAbsent: true,
      index: { name: REVOKED_INDEX, sort: expiryIndexSort(record.notAfter, key) },
    });
  } catch (e) {
    if (!(e instanceof ExistsError)) throw e;
    const first = await part.get<RevokedRecord>(`revoked/${key}`);
    return first?.value.revokedAt ?? record.revokedAt;
  }
  await mutate<CertRecord>(part, certKey(serial), (c) => (c && !c.revokedAt ? { ...c, revokedAt: record.revokedAt } : undefined));
  await rebuildCrl(deps, part);
  return record.revokedAt;
}
