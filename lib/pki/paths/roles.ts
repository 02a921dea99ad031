/** roles/<name>: the issuing policy, CRUD and LIST. */
import { NotFound } from '../../errors';
import { f, type FieldValues } from '../../http/fields';
import { definePath } from '../../http/path';
import { PkiRepository } from '../repository';
import { checkRoleName, normalizeRole, roleToWire, type Role } from '../role';
import { subjectFields } from './fields';
import { subjectAttributes } from './wire';

const roleFields = {
  name: f.pathParam(),
  ttl: f.duration({ default: 0 }),
  max_ttl: f.duration({ default: 0 }),
  allow_localhost: f.bool({ default: true }),
  allowed_domains: f.list({ compareAs: 'lower-case', default: [] }),
  allowed_domains_template: f.bool({ default: false }),
  allow_bare_domains: f.bool({ default: false }),
  allow_subdomains: f.bool({ default: false }),
  allow_glob_domains: f.bool({ default: false }),
  allow_wildcard_certificates: f.bool({ default: true }),
  allow_any_name: f.bool({ default: false }),
  enforce_hostnames: f.bool({ default: true }),
  allow_ip_sans: f.bool({ default: true }),
  allowed_uri_sans: f.list({ default: [] }),
  allowed_uri_sans_template: f.bool({ default: false }),
  allowed_other_sans: f.list({ default: [] }),
  allowed_serial_numbers: f.list({ default: [] }),
  server_flag: f.bool({ default: true }),
  client_flag: f.bool({ default: true }),
  code_signing_flag: f.bool({ default: false }),
  email_protection_flag: f.bool({ default: false }),
  key_type: f.string({ default: 'rsa', enum: ['rsa', 'ec', 'ed25519', 'any'] }),
  key_bits: f.int({ default: 0, min: 0 }),
  signature_bits: f.int({ default: 0, min: 0 }),
  key_usage: f.list({ default: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'] }),
  ext_key_usage: f.list({ default: [] }),
  ext_key_usage_oids: f.list({ default: [] }),
  use_csr_common_name: f.bool({ default: true }),
  use_csr_sans: f.bool({ default: true }),
  ...subjectFields,
  generate_lease: f.bool({ default: false }),
  no_store: f.bool({ default: false }),
  require_cn: f.bool({ default: true }),
  policy_identifiers: f.list({ default: [] }),
  basic_constraints_valid_for_non_ca: f.bool({ default: false }),
  not_before_duration: f.duration({ default: 30 }),
  not_after: f.string({ default: '' }),
  issuer_ref: f.string({ default: 'default', description: 'the issuer that signs for the role: default, an id or a name' }),
};

type RoleWire = FieldValues<typeof roleFields>;

/** The role a write asks for, before normalizeRole checks it; its fields in the stored order. */
function roleFromWire(d: RoleWire): Role {
  return {
    ttl: d.ttl,
    maxTtl: d.max_ttl,
    ...nameRulesFromWire(d),
    ...usagesFromWire(d),
    ...subjectFromWire(d),
    ...issuanceFromWire(d),
  };
}

/** Which names the role allows: domains, IP, URI and other SANs, subject serial numbers. */
function nameRulesFromWire(d: RoleWire) {
  return {
    allowLocalhost: d.allow_localhost,
    allowedDomains: d.allowed_domains,
    allowedDomainsTemplate: d.allowed_domains_template,
    allowBareDomains: d.allow_bare_domains,
    allowSubdomains: d.allow_subdomains,
    allowGlobDomains: d.allow_glob_domains,
    allowWildcardCertificates: d.allow_wildcard_certificates,
    allowAnyName: d.allow_any_name,
    enforceHostnames: d.enforce_hostnames,
    allowIpSans: d.allow_ip_sans,
    allowedUriSans: d.allowed_uri_sans,
    allowedUriSansTemplate: d.allowed_uri_sans_template,
    allowedOtherSans: d.allowed_other_sans,
    allowedSerialNumbers: d.allowed_serial_numbers,
  };
}

/** Extended key usage flags, the key's type and size, signature size and key usages. */
function usagesFromWire(d: RoleWire) {
  return {
    serverFlag: d.server_flag,
    clientFlag: d.client_flag,
    codeSigningFlag: d.code_signing_flag,
    emailProtectionFlag: d.email_protection_flag,
    keyType: d.key_type as Role['keyType'],
    keyBits: d.key_bits,
    signatureBits: d.signature_bits,
    keyUsage: d.key_usage,
    extKeyUsage: d.ext_key_usage,
    extKeyUsageOids: d.ext_key_usage_oids,
  };
}

/** What the subject takes from the CSR, and the subject's fixed attributes. */
function subjectFromWire(d: RoleWire) {
  return {
    useCsrCommonName: d.use_csr_common_name,
    useCsrSans: d.use_csr_sans,
    ...subjectAttributes(d),
  };
}

/** Leases (never without storage) and storage, the CN requirement, policy OIDs, basic constraints and validity bounds. */
function issuanceFromWire(d: RoleWire) {
  return {
    generateLease: d.generate_lease && !d.no_store,
    noStore: d.no_store,
    requireCn: d.require_cn,
    policyIdentifiers: d.policy_identifiers,
    basicConstraintsValidForNonCa: d.basic_constraints_valid_for_non_ca,
    notBeforeDuration: d.not_before_duration,
    notAfter: d.not_after,
    issuerRef: d.issuer_ref || 'default',
  };
}

export const rolePaths = [
  definePath({
    pattern: 'roles',
    fields: {},
    help: 'List roles.',
    operations: {
      list: async (req) => {
        const keys = await new PkiRepository(req.deps, req.part).roleNames();
        if (!keys.length) throw new NotFound();
        return { data: { keys } };
      },
    },
  }),
  definePath({
    pattern: 'roles/:name',
    fields: roleFields,
    help: 'Create, read, update or delete a role.',
    exists: ({ params, part, deps }) => new PkiRepository(deps, part).hasRole(params.name ?? ''),
    operations: {
      read: async (req) => {
        const role = await new PkiRepository(req.deps, req.part).role(checkRoleName(req.data.name));
        if (!role) throw new NotFound();
        return { data: roleToWire(role) };
      },
      write: async (req) => {
        const role = normalizeRole(roleFromWire(req.data), req.mount.maxLeaseTtl);
        await new PkiRepository(req.deps, req.part).putRole(checkRoleName(req.data.name), role);
        return { data: roleToWire(role) };
      },
      delete: async (req) => {
        await new PkiRepository(req.deps, req.part).deleteRole(checkRoleName(req.data.name));
      },
    },
  }),
];
