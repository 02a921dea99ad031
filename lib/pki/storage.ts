/**
 * What a PKI mount keeps in its partition (`pki/<mount>`), owned by its repository
 * (repository.ts; the version-2 layout, migrations.ts):
 *   meta/storage        the layout version, and the issuer that certificates of version 1 belong to
 *   issuer/<id>         an issuer: its certificate, the chain above it, its key, usage and URLs
 *   key/<id>            a key: sealed here (local) or held by KMS (managed)
 *   config/issuers      the default issuer (and whether it follows the latest); config/keys the default key
 *   cert/<serial>       one item per certificate (with its issuer), in the `cert-expiry` index by NotAfter
 *   revoked/<serial>    one item per revocation, in the `revoked` index by the cert's NotAfter
 *   crl/<issuer id>     each issuer's signed CRL and its number (chunked by the store when large)
 *   role/<name>, config/crl, config/urls, config/auto-tidy, config/cluster, config/acme, tidy/status
 *   count/certs/<0-15>  the stored-certificate count, sharded (count/certs: the unsharded one of old)
 * Version 1 (one CA per mount: ca/current, ca/pending, crl/current) is read only by the migration.
 */
import type { SealedValue } from '../keys/sealed';

export const CERT_INDEX = 'cert-expiry';
export const REVOKED_INDEX = 'revoked';

/**
 * A key's material: sealed in the table (opened with the additional data `<partition>/<aad>`;
 * `aad` absent: `key/<id>`), or a KMS key it signs with.
 */
export type KeyRef = { kind: 'local'; sealed: SealedValue; aad?: string } | { kind: 'kms'; keyId: string; name: string };

/** What an issuer may be used for (OpenBao's `usage`). */
export const ISSUER_USAGES = ['read-only', 'issuing-certificates', 'crl-signing', 'ocsp-signing'] as const;
export type IssuerUsage = (typeof ISSUER_USAGES)[number];

export type LeafNotAfterBehavior = 'err' | 'truncate' | 'permit';

/** issuer/<id>. */
export type IssuerRecord = {
  id: string;
  /** '' or a name unique in the mount (a reference may name it). */
  name: string;
  /** PEM of the issuer's certificate. */
  certificate: string;
  /** The key it signs with, by id; '' when the mount holds none for it (imported certificate alone). */
  keyId: string;
  /** PEM certificates above it, nearest first: from manual_chain, else built from the mount's issuers. */
  caChain: string[];
  /** Issuer ids of the chain, as set by manual_chain (empty: built). */
  manualChain: string[];
  usage: IssuerUsage[];
  leafNotAfterBehavior: LeafNotAfterBehavior;
  revocationSignatureAlgorithm: string;
  /** This issuer's AIA and CRL URLs; empty lists fall back to the mount's config/urls. */
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  /** Delta CRL URLs; absent on records written before they were kept. */
  deltaCrlDistributionPoints?: string[];
  ocspServers: string[];
  enableAiaUrlTemplating: boolean;
  /** When it was revoked (ms): it issues nothing more and its parents' CRLs list it. */
  revokedAt?: number;
  /** Colon-hex serial of its certificate. */
  serial: string;
  /** When it was added (ms), for default_follows_latest_issuer and listings. */
  createdAt: number;
};

/** key/<id>. */
export type KeyRecord = {
  id: string;
  name: string;
  /** rsa, ec or ed25519. */
  type: string;
  bits: number;
  /** base64 DER SubjectPublicKeyInfo, to match certificates to keys. */
  spki: string;
  ref: KeyRef;
};

export type IssuersConfig = { default: string; defaultFollowsLatestIssuer: boolean };
export type KeysConfig = { default: string };

/**
 * meta/storage: the layout version; `legacyIssuer`: the issuer that version-1 certificates with
 * no issuer on record belong to, those its CA issued (`legacyCaId`, issuer-id.ts: name and key id).
 */
export type StorageMeta = { version: number; legacyIssuer?: string; legacyCaId?: string };

/** Records are types (not interfaces) of JSON values, so they are stored without conversion. Version 1's ca/current: */
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
  /** The id of the issuer that signed it (absent on version-1 records: meta/storage's legacyIssuer, for its CA's own). */
  issuerId?: string;
};

export type RevokedRecord = {
  serial: string;
  revokedAt: number;
  notAfter: number;
  /** The certificate's issuer by name and key id (issuer-id.ts); absent on records of earlier versions. */
  issuer?: string;
  /** The id of the issuer that signed it, whose CRL lists it (absent on version-1 records: meta/storage's legacyIssuer). */
  issuerId?: string;
  /** RFC 5280 CRLReason when one was given (ACME revokeCert); absent: unspecified. */
  reason?: number;
};

/** Index sort strings: zero-padded seconds, then the serial, so equal expiries stay distinct. */
export const expiryIndexSort = (notAfterMs: number, serial: string) =>
  `${String(Math.floor(notAfterMs / 1000)).padStart(12, '0')}#${serial}`;
