/** A PKI role: the issuing policy. Stored camelCase; read back in the reference's wire shape. */
import { checkTemplates, expandAll } from '../identity-template';
import type { LoginIdentity } from '../types';
import { InvalidInput } from '../domain-errors';
import { formatDuration } from '../duration';
import { EXT_KEY_USAGES, KEY_USAGES } from './der/extensions';
import { checkKeyParams } from './key-params';
import { maxTtlOf } from '../lease-ttl';
import { parseNotAfter, PKI_TTL } from './ttl';

/** A type (not an interface): a role is the JSON the store keeps. */
export type Role = {
  ttl: number;
  maxTtl: number;
  allowLocalhost: boolean;
  allowedDomains: string[];
  allowedDomainsTemplate: boolean;
  allowBareDomains: boolean;
  allowSubdomains: boolean;
  allowGlobDomains: boolean;
  allowWildcardCertificates: boolean;
  allowAnyName: boolean;
  enforceHostnames: boolean;
  allowIpSans: boolean;
  allowedUriSans: string[];
  allowedUriSansTemplate: boolean;
  allowedOtherSans: string[];
  allowedSerialNumbers: string[];
  serverFlag: boolean;
  clientFlag: boolean;
  codeSigningFlag: boolean;
  emailProtectionFlag: boolean;
  keyType: 'rsa' | 'ec' | 'ed25519' | 'any';
  keyBits: number;
  signatureBits: number;
  keyUsage: string[];
  extKeyUsage: string[];
  extKeyUsageOids: string[];
  useCsrCommonName: boolean;
  useCsrSans: boolean;
  ou: string[];
  organization: string[];
  country: string[];
  locality: string[];
  province: string[];
  streetAddress: string[];
  postalCode: string[];
  generateLease: boolean;
  noStore: boolean;
  requireCn: boolean;
  policyIdentifiers: string[];
  basicConstraintsValidForNonCa: boolean;
  notBeforeDuration: number;
  notAfter: string;
  /** The issuer that signs for the role (a reference: `default`, an id or a name); absent on roles of earlier versions: default. */
  issuerRef?: string;
};

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A role name as a path segment: a word, dots, dashes and underscores, at most 128. */
export function checkRoleName(name: string): string {
  if (!NAME.test(name)) throw new InvalidInput(`invalid role name "${name.slice(0, 60)}"`);
  return name;
}

/**
 * The role as it applies to one caller: templated allowed_domains / allowed_uri_sans filled in
 * from the caller's login identity (an entry that cannot be resolved allows nothing).
 */
export function roleForCaller(r: Role, identity: LoginIdentity | undefined): Role {
  if (!r.allowedDomainsTemplate && !r.allowedUriSansTemplate) return r;
  return {
    ...r,
    ...(r.allowedDomainsTemplate ? { allowedDomains: expandAll(r.allowedDomains, identity) } : {}),
    ...(r.allowedUriSansTemplate ? { allowedUriSans: expandAll(r.allowedUriSans, identity) } : {}),
  };
}

/** Checks cross-field rules and fills the key_bits default; throws 400 on a bad combination. */
export function normalizeRole(r: Role, mountMaxTtl: number): Role {
  const maxTtl = maxTtlOf(PKI_TTL, r.maxTtl, mountMaxTtl);
  if (r.ttl && r.ttl > maxTtl) throw new InvalidInput('"ttl" value must be less than "max_ttl" value');
  if (r.notAfter) parseNotAfter(r.notAfter);
  const keyBits = r.keyType === 'any' ? r.keyBits : checkKeyParams(r.keyType, r.keyBits);
  if (![0, 256, 384, 512].includes(r.signatureBits))
    throw new InvalidInput(`unsupported signature_bits ${r.signatureBits}: use 0, 256, 384 or 512`);
  for (const u of r.keyUsage)
    if (!KEY_USAGES.includes(u.toLowerCase() as (typeof KEY_USAGES)[number])) throw new InvalidInput(`unknown key_usage "${u}"`);
  for (const u of r.extKeyUsage) if (!EXT_KEY_USAGES[u.toLowerCase()]) throw new InvalidInput(`unknown ext_key_usage "${u}"`);
  for (const o of [...r.extKeyUsageOids, ...r.policyIdentifiers])
    if (!/^[0-2](\.\d{1,10}){1,30}$/.test(o)) throw new InvalidInput(`invalid OID "${o.slice(0, 60)}"`);
  if (r.allowedDomainsTemplate) checkTemplates(r.allowedDomains, 'allowed_domains');
  if (r.allowedUriSansTemplate) checkTemplates(r.allowedUriSans, 'allowed_uri_sans');
  for (const o of r.allowedOtherSans)
    if (o !== '*' && !/^[0-2](\.\d+)+;(UTF8|UTF-8):.*$/.test(o))
      throw new InvalidInput(`invalid allowed_other_sans entry "${o.slice(0, 60)}": expected <oid>;UTF8:<value>`);
  return { ...r, keyBits };
}

/** The role in the reference's wire shape (snake_case, durations as text), its fields in the reference's order. */
export function roleToWire(r: Role): Record<string, unknown> {
  return {
    ttl: formatDuration(r.ttl),
    max_ttl: formatDuration(r.maxTtl),
    ...nameRulesToWire(r),
    ...usagesToWire(r),
    ...subjectToWire(r),
    ...issuanceToWire(r),
  };
}

/** Which names the role allows: domains, IP, URI and other SANs, subject serial numbers. */
function nameRulesToWire(r: Role): Record<string, unknown> {
  return {
    allow_localhost: r.allowLocalhost,
    allowed_domains: r.allowedDomains,
    allowed_domains_template: r.allowedDomainsTemplate,
    allow_bare_domains: r.allowBareDomains,
    allow_subdomains: r.allowSubdomains,
    allow_glob_domains: r.allowGlobDomains,
    allow_wildcard_certificates: r.allowWildcardCertificates,
    allow_any_name: r.allowAnyName,
    enforce_hostnames: r.enforceHostnames,
    allow_ip_sans: r.allowIpSans,
    allowed_uri_sans: r.allowedUriSans,
    allowed_uri_sans_template: r.allowedUriSansTemplate,
    allowed_other_sans: r.allowedOtherSans,
    allowed_serial_numbers: r.allowedSerialNumbers,
  };
}

/** Extended key usage flags, the key's type and size, signature size and key usages. */
function usagesToWire(r: Role): Record<string, unknown> {
  return {
    server_flag: r.serverFlag,
    client_flag: r.clientFlag,
    code_signing_flag: r.codeSigningFlag,
    email_protection_flag: r.emailProtectionFlag,
    key_type: r.keyType,
    key_bits: r.keyBits,
    signature_bits: r.signatureBits,
    key_usage: r.keyUsage,
    ext_key_usage: r.extKeyUsage,
    ext_key_usage_oids: r.extKeyUsageOids,
  };
}

/** What the subject takes from the CSR, and the subject's fixed attributes. */
function subjectToWire(r: Role): Record<string, unknown> {
  return {
    use_csr_common_name: r.useCsrCommonName,
    use_csr_sans: r.useCsrSans,
    ou: r.ou,
    organization: r.organization,
    country: r.country,
    locality: r.locality,
    province: r.province,
    street_address: r.streetAddress,
    postal_code: r.postalCode,
  };
}

/** Leases and storage, the CN requirement, policy OIDs, basic constraints and validity bounds. */
function issuanceToWire(r: Role): Record<string, unknown> {
  return {
    generate_lease: r.generateLease,
    no_store: r.noStore,
    require_cn: r.requireCn,
    policy_identifiers: r.policyIdentifiers,
    basic_constraints_valid_for_non_ca: r.basicConstraintsValidForNonCa,
    not_before_duration: r.notBeforeDuration,
    not_after: r.notAfter,
    issuer_ref: r.issuerRef ?? 'default',
  };
}
