/** The extension sets of leaf and CA certificates, from already-validated choices. */
import { keyIdentifier, type KeyType } from '../keys/signer';
import type { AltNames } from './der/extensions';
import {
  authorityInfoAccess,
  authorityKeyId,
  basicConstraints,
  certificatePolicies,
  crlDistributionPoints,
  EXT_KEY_USAGES,
  freshestCrl,
  extKeyUsage,
  keyUsage,
  nameConstraints,
  subjectAltName,
  subjectKeyId,
} from './der/extensions';
import type { UrlsConfig } from './config';
import { oid } from './der/asn1';
import { children, readTlv } from './der/reader';

export interface LeafChoices {
  spki: Buffer;
  keyType: KeyType;
  issuerKeyId: Buffer | undefined;
  altNames: AltNames;
  emptySubject: boolean;
  keyUsage: string[];
  extKeyUsage: string[];
  extKeyUsageOids: string[];
  policyIdentifiers: string[];
  basicConstraintsValidForNonCa: boolean;
  urls: UrlsConfig;
}

const distribution = (urls: UrlsConfig) => [
  crlDistributionPoints(urls.crlDistributionPoints),
  freshestCrl(urls.deltaCrlDistributionPoints ?? []),
  authorityInfoAccess(urls.issuingCertificates, urls.ocspServers),
];

const usageCache = new Map<string, (Buffer | undefined)[]>();

/**
 * Key usages a key type must not assert, whatever the role asks (better than the reference,
 * which puts its default KeyEncipherment on every leaf): EC keys neither key nor data
 * encipherment (RFC 8813 section 3), Ed25519 keys no encipherment or key agreement at all
 * (RFC 8410 section 5, RFC 9295 section 3).
 */
const FORBIDDEN_USAGES: Record<KeyType, string[]> = {
  rsa: [],
  ec: ['keyencipherment', 'dataencipherment'],
  ed25519: ['keyencipherment', 'dataencipherment', 'keyagreement', 'encipheronly', 'decipheronly'],
};

/** The key usage and extended key usage extensions of a role and key type: the same bytes for every leaf. */
function usageExtensions(keyType: KeyType, ku: string[], ekuNames: string[], ekuOids: string[]): (Buffer | undefined)[] {
  const key = `${keyType}|${ku.join(',')}|${ekuNames.join(',')}|${ekuOids.join(',')}`;
  let hit = usageCache.get(key);
  if (!hit) {
    const eku = [...new Set([...ekuNames.map((n) => EXT_KEY_USAGES[n.toLowerCase()]).filter((x): x is string => !!x), ...ekuOids])];
    hit = [keyUsage(ku.filter((u) => !FORBIDDEN_USAGES[keyType].includes(u.toLowerCase()))), extKeyUsage(eku)];
    if (usageCache.size < 1000) usageCache.set(key, hit);
  }
  return hit;
}

export function leafExtensions(c: LeafChoices): (Buffer | undefined)[] {
  return [
    ...usageExtensions(c.keyType, c.keyUsage, c.extKeyUsage, c.extKeyUsageOids),
    c.basicConstraintsValidForNonCa ? basicConstraints(false, undefined) : undefined,
    subjectKeyId(keyIdentifier(c.spki)),
    c.issuerKeyId ? authorityKeyId(c.issuerKeyId) : undefined,
    ...distribution(c.urls),
    subjectAltName(c.altNames, c.emptySubject),
    certificatePolicies(c.policyIdentifiers),
  ];
}

export interface CaChoices {
  spki: Buffer;
  issuerKeyId: Buffer;
  altNames: AltNames;
  maxPathLength: number;
  permittedDnsDomains: string[];
  urls: UrlsConfig;
  extraKeyUsage?: string[];
}

export function caExtensions(c: CaChoices): (Buffer | undefined)[] {
  return [
    keyUsage(['certsign', 'crlsign', 'digitalsignature', ...(c.extraKeyUsage ?? [])]),
    basicConstraints(true, c.maxPathLength),
    subjectKeyId(keyIdentifier(c.spki)),
    authorityKeyId(c.issuerKeyId),
    ...distribution(c.urls),
    subjectAltName(c.altNames, false),
    nameConstraints(c.permittedDnsDomains),
  ];
}

export interface RequestedExtension {
  /** Hex of the OID's DER. */
  id: string;
  der: Buffer;
}

/** Never copied: whether it is a CA, and which key signed it, are the issuer's to say. */
const NOT_COPIED = new Set(['2.5.29.19', '2.5.29.35'].map((id) => oid(id).toString('hex')));
const idOf = (extension: Buffer) => children(readTlv(extension).value)[0]!.raw.toString('hex');

/**
 * sign-verbatim: every extension the CSR requests is copied as sent, in place of a generated one
 * with the same OID, as the reference server does; except basicConstraints (as the reference)
 * and authorityKeyIdentifier (the reference copies it too, but a CSR's own would misname the
 * issuer to path building and keep the certificate off its CA's CRL).
 */
export function withRequested(generated: (Buffer | undefined)[], requested: RequestedExtension[]): (Buffer | undefined)[] {
  const copied = requested.filter((e) => !NOT_COPIED.has(e.id));
  if (!copied.length) return generated;
  const ids = new Set(copied.map((e) => e.id));
  return [...generated.filter((e) => e && !ids.has(idOf(e))), ...copied.map((e) => e.der)];
}
