/** The fields of a role write, and their mapping to the domain's role input. */
import { f } from '../../http/fields';
import type { FieldValues } from '../../http/fields';
import { DEFAULT_NOT_BEFORE_SECONDS, type RoleInput } from '../role';

export const roleFields = {
  name: f.pathParam({ description: 'Role name.' }),
  key_type: f.string({ default: '', description: 'otp, dynamic or ca (required on write).' }),
  key: f.string({ default: '', description: 'Name of a registered admin key (dynamic).' }),
  admin_user: f.string({ default: '', description: 'Admin user on the remote host (dynamic).' }),
  default_user: f.string({ default: '', description: 'Default username for credentials.' }),
  cidr_list: f.list({ compareAs: 'address', default: [], description: 'CIDR blocks the role applies to.' }),
  exclude_cidr_list: f.list({ compareAs: 'address', default: [], description: 'CIDR blocks the role does not accept.' }),
  port: f.int({ default: 22, description: 'SSH port.' }),
  key_bits: f.int({ default: 1024, description: 'Dynamic RSA key length: 1024 or 2048.' }),
  install_script: f.string({ default: '', description: 'Script installing/uninstalling keys; built-in when empty.' }),
  allowed_users: f.list({ default: [], description: 'Users credentials or certificates may be for; "*" any.' }),
  allowed_users_template: f.bool({ default: false, description: 'allowed_users may hold identity templates.' }),
  default_user_template: f.bool({ default: false, description: 'default_user is an identity template.' }),
  allowed_domains: f.list({ compareAs: 'lower-case', default: [], description: 'Domains of host certificates; "*" any.' }),
  key_option_specs: f.string({ default: '', description: 'Options prefixed to the installed key.' }),
  ttl: f.duration({ default: 0, description: 'Default certificate or lease TTL.' }),
  max_ttl: f.duration({ default: 0, description: 'Maximum TTL.' }),
  allowed_critical_options: f.list({ default: [], description: 'Critical options allowed when signing; empty allows any.' }),
  allowed_extensions: f.list({ default: [], description: 'Extensions allowed when signing; "*" any, empty none.' }),
  default_critical_options: f.map({ default: {}, description: 'Critical options used when none are requested.' }),
  default_extensions: f.map({ default: {}, description: 'Extensions used when none are requested.' }),
  allow_user_certificates: f.bool({ default: false, description: 'User certificates may be signed.' }),
  allow_host_certificates: f.bool({ default: false, description: 'Host certificates may be signed.' }),
  allow_bare_domains: f.bool({ default: false, description: 'Host certificates may name the allowed domains themselves.' }),
  allow_subdomains: f.bool({ default: false, description: 'Host certificates may name subdomains of the allowed domains.' }),
  allow_user_key_ids: f.bool({ default: false, description: 'Callers may set key_id.' }),
  key_id_format: f.string({ default: '', description: 'Key id template: {{token_display_name}}, {{role_name}}, {{public_key_hash}}.' }),
  allowed_user_key_lengths: f.any({ description: 'Key types mapped to permitted sizes.' }),
  algorithm_signer: f.string({ default: 'default', description: 'ssh-rsa, rsa-sha2-256, rsa-sha2-512 or default.' }),
  not_before_duration: f.duration({
    default: DEFAULT_NOT_BEFORE_SECONDS,
    description: 'How far back certificates start (ValidAfter = now minus this); default 30s.',
  }),
  issuer_ref: f.string({ default: 'default', description: "The issuer a ca role signs with: an issuer's id, its name, or default." }),
  no_store: f.bool({
    default: false,
    description:
      'Do not record signed certificates (ca roles): they can then be revoked only by the certificate itself, not by serial_number or key_id.',
  }),
};

export type RoleFieldValues = FieldValues<typeof roleFields>;

export function roleInput(d: RoleFieldValues): RoleInput {
  return {
    keyType: d.key_type,
    key: d.key,
    adminUser: d.admin_user,
    defaultUser: d.default_user,
    cidrList: d.cidr_list,
    excludeCidrList: d.exclude_cidr_list,
    port: d.port,
    keyBits: d.key_bits,
    installScript: d.install_script,
    allowedUsers: d.allowed_users,
    allowedUsersTemplate: d.allowed_users_template,
    defaultUserTemplate: d.default_user_template,
    allowedDomains: d.allowed_domains,
    keyOptionSpecs: d.key_option_specs,
    ttl: d.ttl,
    maxTtl: d.max_ttl,
    allowedCriticalOptions: d.allowed_critical_options,
    allowedExtensions: d.allowed_extensions,
    defaultCriticalOptions: d.default_critical_options,
    defaultExtensions: d.default_extensions,
    allowUserCertificates: d.allow_user_certificates,
    allowHostCertificates: d.allow_host_certificates,
    allowBareDomains: d.allow_bare_domains,
    allowSubdomains: d.allow_subdomains,
    allowUserKeyIds: d.allow_user_key_ids,
    keyIdFormat: d.key_id_format,
    allowedUserKeyLengths: d.allowed_user_key_lengths,
    algorithmSigner: d.algorithm_signer,
    notBeforeDuration: d.not_before_duration,
    issuerRef: d.issuer_ref,
    noStore: d.no_store,
  };
}
