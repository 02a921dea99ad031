/** SSH roles: what a request may create (rules per key_type) and how each kind reads back. */
import { formatDuration } from '../duration';
import { InvalidInput } from '../domain-errors';
import { checkTemplates } from '../identity-template';
import { validateCidrs } from '../net/cidr';
import { DEFAULT_REF, isIssuerRef, normalRef } from './issuer-ref';
import { parseKeyLengths, type KeyLengths } from './key-lengths';

export type RoleKind = 'otp' | 'dynamic' | 'ca';
export const ALGORITHM_SIGNERS = ['', 'default', 'ssh-rsa', 'rsa-sha2-256', 'rsa-sha2-512'] as const;

/** A type (not an interface): a role is the JSON the store keeps. */
export type Role = {
  keyType: RoleKind;
  key: string;
  adminUser: string;
  defaultUser: string;
  cidrList: string[];
  excludeCidrList: string[];
  port: number;
  keyBits: number;
  installScript: string;
  allowedUsers: string[];
  allowedUsersTemplate: boolean;
  /** default_user is an identity template; absent on roles stored before the field: false. */
  defaultUserTemplate?: boolean;
  allowedDomains: string[];
  keyOptionSpecs: string;
  ttl: number;
  maxTtl: number;
  allowedCriticalOptions: string[];
  allowedExtensions: string[];
  defaultCriticalOptions: Record<string, string>;
  defaultExtensions: Record<string, string>;
  allowUserCertificates: boolean;
  allowHostCertificates: boolean;
  allowBareDomains: boolean;
  allowSubdomains: boolean;
  allowUserKeyIds: boolean;
  keyIdFormat: string;
  allowedUserKeyLengths: KeyLengths;
  algorithmSigner: string;
  /** Seconds a certificate is backdated by (ca roles); absent on roles stored before the field: the default. */
  notBeforeDuration?: number;
  /** The issuer a ca role signs with (an id, a name or `default`), resolved when signing; absent on roles stored before the field: `default`. */
  issuerRef?: string;
  /** Signed certificates are not recorded (so not revocable by serial or key id); ca roles only; absent on roles stored before the field: false. */
  noStore?: boolean;
};

export const DEFAULT_NOT_BEFORE_SECONDS = 30;

export type RoleInput = Omit<Role, 'allowedUserKeyLengths' | 'keyType'> & { keyType: string; allowedUserKeyLengths: unknown };

/**
 * Validates a role write; returns the role to store. An otp or dynamic role may have no cidr_list
 * (as in Vault): it then issues only once listed in config/zeroaddress, which is checked at
 * creds time (`checkTargetIp`), since that list may only name roles that exist.
 */
export function buildRole(input: RoleInput): Role {
  const kind = input.keyType;
  if (kind !== 'otp' && kind !== 'dynamic' && kind !== 'ca') throw new InvalidInput('missing or invalid key_type: use otp, dynamic or ca');
  const role: Role = { ...input, keyType: kind, allowedUserKeyLengths: parseKeyLengths(input.allowedUserKeyLengths) };
  role.issuerRef = checkIssuerRef(kind, input.issuerRef ?? DEFAULT_REF);
  checkSizes(role);
  if (role.allowedUsersTemplate) checkTemplates(role.allowedUsers, 'allowed_users');
  if (role.defaultUserTemplate) checkTemplates([role.defaultUser], 'default_user');
  if (kind === 'ca') return checkCaRole(role);
  // Templates are resolved when signing; an otp or dynamic role would compare them as text.
  if (role.allowedUsersTemplate || role.defaultUserTemplate)
    throw new InvalidInput('allowed_users_template and default_user_template apply to ca roles only');
  if (role.noStore) throw new InvalidInput('no_store applies to ca roles only');
  if (kind === 'dynamic') {
    if (!role.key) throw new InvalidInput('missing key name');
    if (!role.adminUser) throw new InvalidInput('missing admin_user');
    if (role.keyBits !== 1024 && role.keyBits !== 2048) throw new InvalidInput('invalid key_bits: use 1024 or 2048');
  }
  // As the reference: an otp role never logs in to the host, so an admin user is a mistake.
  if (kind === 'otp' && role.adminUser) throw new InvalidInput('admin_user is not allowed on otp roles (no login to the host is made)');
  if (!role.defaultUser) throw new InvalidInput('missing default_user');
  validateCidrs(role.cidrList, 'cidr_list');
  validateCidrs(role.excludeCidrList, 'exclude_cidr_list');
  if (role.port < 1 || role.port > 65535) throw new InvalidInput('invalid port: use 1 to 65535');
  return role;
}

/** As OpenBao, the reference is kept as written and resolved when signing; only ca roles sign. */
function checkIssuerRef(kind: RoleKind, given: string): string {
  const ref = normalRef(given) || DEFAULT_REF;
  if (kind !== 'ca' && ref !== DEFAULT_REF) throw new InvalidInput('issuer_ref applies to ca roles only');
  if (!isIssuerRef(ref)) throw new InvalidInput("invalid issuer_ref: use an issuer's id, its name or default");
  return ref;
}

const MAX_LIST = 1000;

/** Bounds on what a role may hold; key_option_specs becomes part of an authorized_keys line. */
function checkSizes(role: Role): void {
  if (role.installScript.length > 65_536) throw new InvalidInput('install_script is too long (64 KiB at most)');
  if (role.keyOptionSpecs.length > 4096 || /[\x00-\x1f\x7f]/.test(role.keyOptionSpecs)) {
    throw new InvalidInput('invalid key_option_specs: at most 4096 characters, no control characters');
  }
  const lists = [
    role.cidrList,
    role.excludeCidrList,
    role.allowedUsers,
    role.allowedDomains,
    role.allowedCriticalOptions,
    role.allowedExtensions,
  ];
  if (lists.some((l) => l.length > MAX_LIST)) throw new InvalidInput(`a role list may hold at most ${MAX_LIST} entries`);
}

function checkCaRole(role: Role): Role {
  if (!role.allowUserCertificates && !role.allowHostCertificates) {
    throw new InvalidInput('either allow_user_certificates or allow_host_certificates must be set');
  }
  if (role.ttl && role.maxTtl && role.ttl > role.maxTtl) throw new InvalidInput('ttl cannot be greater than max_ttl');
  if (!(ALGORITHM_SIGNERS as readonly string[]).includes(role.algorithmSigner)) {
    throw new InvalidInput('invalid algorithm_signer: use ssh-rsa, rsa-sha2-256, rsa-sha2-512 or default');
  }
  return role;
}

const joined = (l: string[]) => l.join(',');

/** The read-back shape of each kind (flat, snake_case). */
export function roleView(role: Role): Record<string, unknown> {
  if (role.keyType === 'otp') {
    return {
      key_type: 'otp',
      cidr_list: joined(role.cidrList),
      exclude_cidr_list: joined(role.excludeCidrList),
      default_user: role.defaultUser,
      allowed_users: joined(role.allowedUsers),
      port: role.port,
    };
  }
  if (role.keyType === 'dynamic') {
    return {
      key_type: 'dynamic',
      key: role.key,
      admin_user: role.adminUser,
      default_user: role.defaultUser,
      cidr_list: joined(role.cidrList),
      exclude_cidr_list: joined(role.excludeCidrList),
      port: role.port,
      key_bits: role.keyBits,
      allowed_users: joined(role.allowedUsers),
      key_option_specs: role.keyOptionSpecs,
      install_script: role.installScript,
    };
  }
  return caRoleView(role);
}

function caRoleView(role: Role): Record<string, unknown> {
  return {
    key_type: 'ca',
    allow_bare_domains: role.allowBareDomains,
    allow_host_certificates: role.allowHostCertificates,
    allow_subdomains: role.allowSubdomains,
    allow_user_key_ids: role.allowUserKeyIds,
    allow_user_certificates: role.allowUserCertificates,
    allowed_critical_options: joined(role.allowedCriticalOptions),
    allowed_extensions: joined(role.allowedExtensions),
    default_critical_options: role.defaultCriticalOptions,
    default_extensions: role.defaultExtensions,
    max_ttl: formatDuration(role.maxTtl),
    ttl: formatDuration(role.ttl),
    allowed_users: joined(role.allowedUsers),
    allowed_users_template: role.allowedUsersTemplate,
    default_user_template: role.defaultUserTemplate ?? false,
    allowed_domains: joined(role.allowedDomains),
    default_user: role.defaultUser,
    key_id_format: role.keyIdFormat,
    allowed_user_key_lengths: role.allowedUserKeyLengths,
    algorithm_signer: role.algorithmSigner || 'default',
    not_before_duration: role.notBeforeDuration ?? DEFAULT_NOT_BEFORE_SECONDS,
    issuer_ref: role.issuerRef ?? DEFAULT_REF,
    no_store: role.noStore ?? false,
  };
}
