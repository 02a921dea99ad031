/**
 * Which CA issued a certificate, as a CRL needs it: the issuer name and the authority key id
 * of the certificate against the subject name and key id of a CA. A CRL lists only the
 * certificates its CA issued.
 */
import { createHash } from 'node:crypto';
import { keyIdentifier } from '../keys/signer';
import type { ParsedCert } from './parse';

const nameHash = (der: Buffer) => createHash('sha256').update(der).digest('hex').slice(0, 32);

/** `<issuer name hash>:<authority key id hex, or empty>` of a certificate. */
export const issuerIdOf = (cert: Pick<ParsedCert, 'issuerDer' | 'authorityKeyId'>): string =>
  `${nameHash(cert.issuerDer)}:${cert.authorityKeyId?.toString('hex') ?? ''}`;

/** The same identity for a CA certificate as issuer. */
export const caIdOf = (ca: Pick<ParsedCert, 'subjectDer' | 'subjectKeyId' | 'spki'>): string =>
  `${nameHash(ca.subjectDer)}:${(ca.subjectKeyId ?? keyIdentifier(ca.spki)).toString('hex')}`;

/** Whether a certificate with issuer id `cert` was issued by the CA with id `ca` (no AKI: by name). */
export function issuedBy(cert: string, ca: string): boolean {
  const [name, keyId] = cert.split(':');
  const [caName, caKeyId] = ca.split(':');
  return name === caName && (!keyId || keyId === caKeyId);
}
