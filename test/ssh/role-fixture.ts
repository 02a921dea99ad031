/** A role of every default for the rule tables (test/ssh/*.test.ts), and a signing context. */
import { buildRole, type Role, type RoleInput } from '../../lib/ssh/role';
import type { SignContext } from '../../lib/ssh/sign';

export const base: RoleInput = {
  keyType: 'ca',
  key: '',
  adminUser: '',
  defaultUser: '',
  cidrList: [],
  excludeCidrList: [],
  port: 22,
  keyBits: 1024,
  installScript: '',
  allowedUsers: [],
  allowedUsersTemplate: false,
  allowedDomains: [],
  keyOptionSpecs: '',
  ttl: 0,
  maxTtl: 0,
  allowedCriticalOptions: [],
  allowedExtensions: [],
  defaultCriticalOptions: {},
  defaultExtensions: {},
  allowUserCertificates: true,
  allowHostCertificates: false,
  allowBareDomains: false,
  allowSubdomains: false,
  allowUserKeyIds: false,
  keyIdFormat: '',
  allowedUserKeyLengths: {},
  algorithmSigner: 'default',
};
/** Table rows are `as const` (readonly arrays); the role input takes them as they are. */
export const role = (o: object): Role => buildRole({ ...base, ...(o as Partial<RoleInput>) });
export const ctx: SignContext = { displayName: 'token-ops', roleName: 'r', mountDefaultTtl: 3600, mountMaxTtl: 7200, nowMs: 0 };
