/**
 * Revocation: idempotent (a second call returns the first time), refused for an issuer's own
 * certificate, written ahead of the CRL rebuild so a crash leaves a revocation the next rebuild
 * picks up. The revocation names the certificate's issuer, whose CRL lists it. What is rebuilt
 * then follows config/crl (crl.ts afterRevocation): the complete CRLs, or with auto_rebuild the
 * delta CRLs when enabled (a repeated call puts a revocation a crash left off the delta list on it).
 */
import { metrics, mountOf } from '../metrics/catalog';
import type { Deps } from '../deps';
import { ExistsError, InvalidInput, NotFoundError } from '../domain-errors';
import { mutate, type Partition } from '../store/store';
import { afterRevocation } from './crl';
import { pkiRepository } from './issuer';
import { issuerIdOf } from './issuer-id';
import { parseCertificate } from './parse';
import { certKey } from './repository';
import { colonSerial, serialKey } from './serial';
import { expiryIndexSort, REVOKED_INDEX, type CertRecord, type RevokedRecord } from './storage';

/** `reason`: an RFC 5280 CRLReason for the CRL entry (0: unspecified, none written). Returns the revocation time in milliseconds (the first one when already revoked); NotFoundError when no such certificate is stored. */
export async function revokeSerial(deps: Deps, part: Partition, serial: Buffer, reason = 0): Promise<number> {
  const key = serialKey(serial);
  const repo = pkiRepository(deps, part);
  const own = (await repo.issuers()).find((i) => i.serial === colonSerial(serial));
  if (own) throw new InvalidInput(`adding issuer (id: ${own.id}) to its own CRL is not allowed`);
  const cert = await repo.certificate(serial);
  if (!cert) throw new NotFoundError(`certificate with serial ${key.match(/../g)?.join(':') ?? key} not found`);
  const issuerId = await repo.issuerIdOf(cert);
  const record: RevokedRecord = {
    serial: key,
    revokedAt: deps.now(),
    notAfter: cert.notAfter,
    issuer: issuerIdOf(parseCertificate(Buffer.from(cert.der, 'base64'))),
    ...(issuerId ? { issuerId } : {}),
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
    if (first) await afterRevocation(deps, part, first.value, true);
    return first?.value.revokedAt ?? record.revokedAt;
  }
  metrics.pki.revoked.inc({ mount: mountOf(part.name) });
  await mutate<CertRecord>(part, certKey(serial), (c) => (c && !c.revokedAt ? { ...c, revokedAt: record.revokedAt } : undefined));
  await afterRevocation(deps, part, record);
  return record.revokedAt;
}
