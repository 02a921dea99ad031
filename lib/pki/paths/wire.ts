/** Wire <-> domain for the shared field sets. */
import type { CaRequest, KeyChoice } from '../ca';
import type { LeafRequest } from '../leaf';

interface NameWire {
  common_name: string;
  alt_names: string[];
  ip_sans: string[];
  uri_sans: string[];
  other_sans: string[];
  exclude_cn_from_sans: boolean;
  ttl?: number | undefined;
  not_after: string;
  serial_number: string;
}

export function leafRequest(d: NameWire): LeafRequest {
  return {
    commonName: d.common_name.trim(),
    altNames: d.alt_names,
    ipSans: d.ip_sans,
    uriSans: d.uri_sans,
    otherSans: d.other_sans,
    excludeCnFromSans: d.exclude_cn_from_sans,
    ttl: d.ttl,
    notAfter: d.not_after || undefined,
    serialNumber: d.serial_number,
  };
}

interface CaWire extends NameWire {
  ou: string[];
  organization: string[];
  country: string[];
  locality: string[];
  province: string[];
  street_address: string[];
  postal_code: string[];
  max_path_length: number;
  permitted_dns_domains: string[];
  signature_bits: number;
  key_type?: string | undefined;
  key_bits?: number | undefined;
  managed_key_name?: string | undefined;
  managed_key_id?: string | undefined;
}

/** The subject's fixed attributes, wire to domain (a CA request's, a role's). */
export function subjectAttributes(d: {
  ou: string[];
  organization: string[];
  country: string[];
  locality: string[];
  province: string[];
  street_address: string[];
  postal_code: string[];
}) {
  return {
    ou: d.ou,
    organization: d.organization,
    country: d.country,
    locality: d.locality,
    province: d.province,
    streetAddress: d.street_address,
    postalCode: d.postal_code,
  };
}

export function caRequest(d: CaWire): CaRequest {
  return {
    ...leafRequest(d),
    subject: {
      ...subjectAttributes(d),
      ...(d.serial_number ? { serialNumber: d.serial_number } : {}),
    },
    maxPathLength: d.max_path_length,
    permittedDnsDomains: d.permitted_dns_domains,
    signatureBits: d.signature_bits,
  };
}

export function keyChoice(type: string, d: CaWire): KeyChoice {
  return {
    type: type as KeyChoice['type'],
    keyType: d.key_type ?? 'rsa',
    keyBits: d.key_bits ?? 0,
    keyParamsGiven: d.key_type !== undefined || d.key_bits !== undefined,
    managedKeyName: d.managed_key_name,
    managedKeyId: d.managed_key_id,
  };
}

/**
 * A revocation time on the wire, as the reference answers it: Unix seconds, and RFC 3339 in UTC
 * with the fraction's trailing zeros dropped (Go's RFC3339Nano); "" when not revoked.
 */
export function revocationTime(ms: number | undefined): { revocation_time: number; revocation_time_rfc3339: string } {
  if (!ms) return { revocation_time: 0, revocation_time_rfc3339: '' };
  const iso = new Date(ms).toISOString().replace(/\.?0*Z$/, 'Z');
  return { revocation_time: Math.floor(ms / 1000), revocation_time_rfc3339: iso };
}
