/** The extension sets of leaf and CA certificates, from already-validated choices. */
import { keyIdentifier } from '../keys/signer';
import type { AltNames } from './der/extensions';
import {
  authorityInfoAccess,
  authorityKeyId,
  basicConstraints,
  certificatePolicies,
  crlDistributionPoints,
  EXT_KEY_USAGES,
  extKeyUsage,
  keyUsage,
  nameConstraints,
  subjectAltName,
  subjectKeyId,
} from './der/extensions';
import type { UrlsConfig } from './config';

export interface LeafChoices {
  spki: Buffer;
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

const distribution = (urls: UrlsConfig) => [crlDistributionPoints(urls.crlDistributionPoints), authorityInfoAccess(urls.issuingCertificates, urls.ocspServers)];

const usageCache = new Map<string, (Buffer | undefined)[]>();

/** The key usage and extended key usage extensions of a role: the same bytes for every leaf. */
function usageExtensions(ku: string[], ekuNames: string[], ekuOids: string[]): (Buffer | undefined)[] {
  const key = `${ku.join(',')}|${ekuNames.join(',')}|${ekuOids.join(',')}`;
  let hit = usageCache.get(key);
  if (!hit) {
    const eku = [...new Set([...ekuNames.map((n) => EXT_KEY_USAGES[n.toLowerCase()]).filter((x): x is string => !!x), ...ekuOids])];
    hit = [keyUsage(ku), extKeyUsage(eku)];
    if (usageCache.size < 1000) usageCache.set(key, hit);
  }
  return hit;
}

export function leafExtensions(c: LeafChoices): (Buffer | undefined)[] {
  return [
    ...usageExtensions(c.keyUsage, c.extKeyUsage, c.extKeyUsageOids),
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
