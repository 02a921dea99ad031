/**
 * What a PKI mount keeps in its partition (`pki/<mount>`):
 *   ca/current      the issuer: certificate, chain above it, key reference (sealed or KMS)
 *   ca/pending      a key from intermediate/generate waiting for set-signed
 *   cert/<serial>   one item per certificate, in the `cert-expiry` index by NotAfter
 *   revoked/<serial> one item per revocation, in the `revoked` index by the cert's NotAfter
 *   crl/current     the signed CRL and its number (chunked by the store when large)
 *   role/<name>, config/crl, config/urls, config/auto-tidy, tidy/status
 *   count/certs/<0-15> the stored-certificate count, sharded (count/certs: the unsharded one of old)
 */
import type { SealedValue } from '../keys/sealed';

export const CERT_INDEX = 'cert-expiry';
export const REVOKED_INDEX = 'revoked';

export type KeyRef = { kind: 'local'; sealed: SealedValue } | { kind: 'kms'; keyId: string; name: string };

/** Records are types (not interfaces) of JSON values, so they are stored without conversion. */
export type CaRecord = {
  /** PEM of the issuing certificate; empty before set-signed. */
  certificate: string;
  /** PEM certificates above it, nearest first. */
  chain: string[];
  /** Null after DELETE root: the certificate stays readable, nothing can be signed. */
  key: KeyRef | null;
  serial: string;
};

/** ca/pending: the key intermediate/generate made, waiting for set-signed. */
export type PendingRecord = { key: KeyRef };

export type CertRecord = {
  /** base64 DER */
  der: string;
  notAfter: number;
  revokedAt?: number;
};

export type RevokedRecord = {
  serial: string;
  revokedAt: number;
  notAfter: number;
  /** The certificate's issuer (issuer-id.ts); absent on records of earlier versions. */
  issuer?: string;
  /** RFC 5280 CRLReason when one was given (ACME revokeCert); absent: unspecified. */
  reason?: number;
};

/** Index sort strings: zero-padded seconds, then the serial, so equal expiries stay distinct. */
export const expiryIndexSort = (notAfterMs: number, serial: string) =>
  `${String(Math.floor(notAfterMs / 1000)).padStart(12, '0')}#${serial}`;
