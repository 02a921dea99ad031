/**
 * Token roles: named settings that tokens are created against (`auth/token/create/<role>`),
 * stored in the sys partition under `token-role/<name>`. Names are kept exactly as given, so
 * policy evaluation sees the same spelling the store does.
 */
import { SYSTEM_MAX_LEASE_TTL } from '../config';
import { InvalidInput } from '../domain-errors';
import type { Partition } from '../store/store';
import { sanitizePolicies, uniqueLower } from './token-policies';

export type TokenRole = {
  name: string;
  allowedPolicies: string[];
  disallowedPolicies: string[];
  allowedPoliciesGlob: string[];
  disallowedPoliciesGlob: string[];
  orphan: boolean;
  renewable: boolean;
  pathSuffix: string;
  /** The legacy field, kept only to be read back as written. */
  period: number;
  tokenPeriod: number;
  /** The legacy field, kept only to be read back as written. */
  explicitMaxTtl: number;
  tokenExplicitMaxTtl: number;
  /** Default TTL of tokens created against the role (0: the system default). */
  tokenTtl: number;
  /** Lifetime limit of tokens created against the role, renewals included (0: none). */
  tokenMaxTtl: number;
  tokenType: 'default-service' | 'service';
  tokenNoDefaultPolicy: boolean;
  tokenNumUses: number;
};

/** A role write: absent fields keep their value on update and take the default on create. */
export interface RoleInput {
  allowedPolicies?: string[];
  disallowedPolicies?: string[];
  allowedPoliciesGlob?: string[];
  disallowedPoliciesGlob?: string[];
  orphan?: boolean;
  renewable?: boolean;
  pathSuffix?: string;
  period?: number;
  tokenPeriod?: number;
  explicitMaxTtl?: number;
  tokenExplicitMaxTtl?: number;
  tokenTtl?: number;
  tokenMaxTtl?: number;
  tokenType?: string;
  tokenNoDefaultPolicy?: boolean;
  tokenNumUses?: number;
}

const NAME = /^\w([\w.-]{0,126}\w)?$/;
const SUFFIX_SEGMENT = /^\w[\w.-]*\w$/;

export function checkRoleName(name: string): string {
  if (!NAME.test(name))
    throw new InvalidInput(
      `invalid role name "${name}": use letters, digits, _ . - (at most 128, starting and ending with a letter or digit)`,
    );
  return name;
}

function newRole(name: string): TokenRole {
  return {
    name,
    allowedPolicies: [],
    disallowedPolicies: [],
    allowedPoliciesGlob: [],
    disallowedPoliciesGlob: [],
    orphan: false,
    renewable: true,
    pathSuffix: '',
    period: 0,
    tokenPeriod: 0,
    explicitMaxTtl: 0,
    tokenExplicitMaxTtl: 0,
    tokenTtl: 0,
    tokenMaxTtl: 0,
    tokenType: 'default-service',
    tokenNoDefaultPolicy: false,
    tokenNumUses: 0,
  };
}

function checkSuffix(suffix: string): string {
  if (suffix === '') return suffix;
  if (suffix.length > 128 || suffix.includes('..') || !suffix.split('/').every((s) => SUFFIX_SEGMENT.test(s))) {
    throw new InvalidInput(`invalid path_suffix "${suffix}": use segments of letters, digits, _ . - separated by "/", without ".."`);
  }
  return suffix;
}

function tokenType(value: string): TokenRole['tokenType'] {
  if (value === 'service' || value === 'default-service') return value;
  if (value === 'batch' || value === 'default-batch')
    throw new InvalidInput(`token_type "${value}": batch tokens are not supported; use "service"`);
  throw new InvalidInput(`invalid 'token_type' value "${value}"`);
}

/** The legacy and current fields of a duration, as the reference keeps them; plus a warning. */
function pairedDuration(
  current: number | undefined,
  legacy: number | undefined,
  names: [string, string],
  role: { legacy: number; current: number },
) {
  if (current !== undefined) {
    const warning =
      legacy !== undefined ? `Both '${names[0]}' and deprecated '${names[1]}' value supplied, ignoring the deprecated value` : undefined;
    return { legacy: 0, current, warning };
  }
  if (legacy !== undefined) return { legacy, current: legacy, warning: undefined };
  return { ...role, warning: undefined };
}

/** The role after a write (create when `existing` is undefined), and the warnings to answer. */
export function applyRoleInput(name: string, existing: TokenRole | undefined, i: RoleInput): { role: TokenRole; warnings: string[] } {
  const r: TokenRole = { ...(existing ?? newRole(name)) };
  const warnings: string[] = [];
  if (i.allowedPolicies) r.allowedPolicies = sanitizePolicies(i.allowedPolicies, false);
  if (i.disallowedPolicies) r.disallowedPolicies = uniqueLower(i.disallowedPolicies);
  if (i.allowedPoliciesGlob) r.allowedPoliciesGlob = sanitizePolicies(i.allowedPoliciesGlob, false);
  if (i.disallowedPoliciesGlob) r.disallowedPoliciesGlob = uniqueLower(i.disallowedPoliciesGlob);
  if (i.orphan !== undefined) r.orphan = i.orphan;
  if (i.renewable !== undefined) r.renewable = i.renewable;
  if (i.pathSuffix !== undefined) r.pathSuffix = checkSuffix(i.pathSuffix.trim());
  if (i.tokenType !== undefined) r.tokenType = tokenType(i.tokenType.trim().toLowerCase());
  if (i.tokenNoDefaultPolicy !== undefined) r.tokenNoDefaultPolicy = i.tokenNoDefaultPolicy;
  if (i.tokenNumUses !== undefined) r.tokenNumUses = i.tokenNumUses;
  if (i.tokenTtl !== undefined) r.tokenTtl = i.tokenTtl;
  if (i.tokenMaxTtl !== undefined) r.tokenMaxTtl = i.tokenMaxTtl;
  const period = pairedDuration(i.tokenPeriod, i.period, ['token_period', 'period'], { legacy: r.period, current: r.tokenPeriod });
  const maxTtl = pairedDuration(i.tokenExplicitMaxTtl, i.explicitMaxTtl, ['token_explicit_max_ttl', 'explicit_max_ttl'], {
    legacy: r.explicitMaxTtl,
    current: r.tokenExplicitMaxTtl,
  });
  [r.period, r.tokenPeriod, r.explicitMaxTtl, r.tokenExplicitMaxTtl] = [period.legacy, period.current, maxTtl.legacy, maxTtl.current];
  for (const w of [period.warning, maxTtl.warning]) if (w) warnings.push(w);
  if (r.tokenExplicitMaxTtl > SYSTEM_MAX_LEASE_TTL) {
    warnings.push(
      `Given explicit max TTL of ${r.tokenExplicitMaxTtl} is greater than system/mount allowed value of ${SYSTEM_MAX_LEASE_TTL} seconds; tokens created against this role are capped at the system value`,
    );
  }
  if (r.tokenTtl && r.tokenMaxTtl && r.tokenTtl > r.tokenMaxTtl) throw new InvalidInput('token_ttl cannot be greater than token_max_ttl');
  return { role: r, warnings };
}

const KEY = 'token-role/';

export class TokenRoles {
  constructor(private readonly part: Partition) {}

  async get(name: string): Promise<TokenRole | undefined> {
    if (!NAME.test(name)) return undefined;
    return (await this.part.get<TokenRole>(KEY + name))?.value;
  }

  async put(role: TokenRole): Promise<void> {
    await this.part.put(KEY + role.name, role);
  }

  async delete(name: string): Promise<void> {
    if (NAME.test(name)) await this.part.delete(KEY + name);
  }

  async list(): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(KEY, { ...(cursor ? { cursor } : {}) });
      names.push(...page.items.map((k) => k.slice(KEY.length)));
      cursor = page.cursor;
    } while (cursor && names.length < 100_000);
    return names;
  }
}
