/**
 * A jwt role: what a token must carry to log in (audiences, subject, bound claims), which claim
 * names the user, which claims become metadata, the time leeways, and the token settings.
 * Built from a write over the current role (only given fields change), as the reference does.
 */
import { caseKeptRoleName } from '../role-name';
import { InvalidInput } from '../../domain-errors';
import { parseDuration } from '../../duration';
import { quoted } from '../../quote';
import { mergeTokenSettings, type TokenSettings } from '../token-fields';
import type { BoundClaims } from './claims';
import { DEFAULT_CLAIM_LEEWAY, DEFAULT_CLOCK_SKEW_LEEWAY } from './expected';

export type JwtRole = {
  roleType: 'jwt';
  boundAudiences: string[];
  boundSubject: string;
  boundClaimsType: 'string' | 'glob';
  boundClaims: BoundClaims;
  claimMappings: Record<string, string>;
  userClaim: string;
  userClaimJsonPointer: boolean;
  groupsClaim: string;
  clockSkewLeeway: number;
  expirationLeeway: number;
  notBeforeLeeway: number;
  token: TokenSettings;
};

export interface RoleInput {
  roleType?: string | undefined;
  boundAudiences?: string[] | undefined;
  boundSubject?: string | undefined;
  boundClaimsType?: string | undefined;
  boundClaims?: unknown;
  claimMappings?: Record<string, string> | undefined;
  userClaim?: string | undefined;
  userClaimJsonPointer?: boolean | undefined;
  groupsClaim?: string | undefined;
  clockSkewLeeway?: unknown;
  expirationLeeway?: unknown;
  notBeforeLeeway?: unknown;
}

const RESERVED_METADATA = ['role'];

/** Role names as the reference takes them: lower-cased, letters, digits, '_', '-', '.'. */
/** A role name in a path: the auth methods' one rule (lib/auth/role-name.ts). */
export const checkRoleName = caseKeptRoleName;

/** A signed duration in seconds ("-1" disables a leeway, "0" takes the default). */
export function signedDuration(v: unknown, field: string): number {
  if (typeof v === 'number' && Number.isInteger(v)) {
    if (Math.abs(v) > 100 * 365 * 86400) throw new InvalidInput(`${field}: out of range`);
    return v;
  }
  if (typeof v === 'string') {
    const s = v.trim();
    const neg = s.startsWith('-');
    const n = parseDuration(neg ? s.slice(1) : s);
    if (n !== undefined) return neg ? -n : n;
  }
  throw new InvalidInput(`${field}: expected a duration such as "150", "2m" or -1`);
}

function boundClaimsOf(v: unknown, glob: boolean): BoundClaims {
  if (v === '' || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new InvalidInput('bound_claims: expected an object of claim names to values');
  const out: BoundClaims = {};
  const scalar = (x: unknown, claim: string): string => {
    if (typeof x === 'string') return x;
    if (!glob && (typeof x === 'number' || typeof x === 'boolean')) return String(x);
    throw new InvalidInput(`bound_claims: claim "${claim.slice(0, 64)}" is not a string${glob ? '' : ' or list'}`);
  };
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (!k) throw new InvalidInput('bound_claims: a claim name is empty');
    out[k] = Array.isArray(x) ? x.map((e) => scalar(e, k)) : scalar(x, k);
  }
  return out;
}

function checkMappings(m: Record<string, string>): Record<string, string> {
  const targets = new Set<string>();
  for (const target of Object.values(m)) {
    if (RESERVED_METADATA.includes(target))
      throw new InvalidInput(`metadata key "${target}" is reserved and may not be a mapping destination`);
    if (targets.has(target)) throw new InvalidInput(`multiple keys are mapped to metadata key${quoted(target)}`);
    targets.add(target);
  }
  return { ...m };
}

/** The role after a write: the given fields over `current` (or the defaults). */
export function buildRole(current: JwtRole | undefined, d: RoleInput, token: Parameters<typeof mergeTokenSettings>[1]): JwtRole {
  const r: JwtRole = current ? { ...current } : defaultRole();
  checkRoleType(d.roleType);
  r.token = mergeTokenSettings(current?.token, token);
  setLeeways(r, d);
  setBounds(r, d);
  setClaimUse(r, d);
  if (!r.boundAudiences.length && !r.token.boundCidrs.length && !r.boundSubject && !Object.keys(r.boundClaims).length) {
    throw new InvalidInput('must have at least one bound constraint when creating/updating a role');
  }
  return r;
}

/** A new role before the write's fields: no bounds, no user claim, the default leeways and token settings. */
function defaultRole(): JwtRole {
  return {
    roleType: 'jwt',
    boundAudiences: [],
    boundSubject: '',
    boundClaimsType: 'string',
    boundClaims: {},
    claimMappings: {},
    userClaim: '',
    userClaimJsonPointer: false,
    groupsClaim: '',
    clockSkewLeeway: DEFAULT_CLOCK_SKEW_LEEWAY,
    expirationLeeway: DEFAULT_CLAIM_LEEWAY,
    notBeforeLeeway: DEFAULT_CLAIM_LEEWAY,
    token: mergeTokenSettings(undefined, {}),
  };
}

/** Only the jwt role type (or none) is taken; oidc is refused with its own reason. */
function checkRoleType(roleType: string | undefined): void {
  if (roleType !== undefined && roleType !== '' && roleType !== 'jwt') {
    throw new InvalidInput(
      roleType === 'oidc'
        ? "role_type 'oidc' is not supported: Latchkey serves the jwt login only (no browser OIDC flow)"
        : `invalid 'role_type'${quoted(roleType)}`,
    );
  }
}

function setLeeways(r: JwtRole, d: RoleInput): void {
  if (d.clockSkewLeeway !== undefined) r.clockSkewLeeway = signedDuration(d.clockSkewLeeway, 'clock_skew_leeway');
  if (d.expirationLeeway !== undefined) r.expirationLeeway = signedDuration(d.expirationLeeway, 'expiration_leeway');
  if (d.notBeforeLeeway !== undefined) r.notBeforeLeeway = signedDuration(d.notBeforeLeeway, 'not_before_leeway');
}

/** What a token must carry: audiences, subject, bound claims (kept claims are checked again under glob matching). */
function setBounds(r: JwtRole, d: RoleInput): void {
  if (d.boundAudiences !== undefined) r.boundAudiences = [...new Set(d.boundAudiences)];
  if (d.boundSubject !== undefined) r.boundSubject = d.boundSubject;
  if (d.boundClaimsType !== undefined) {
    if (d.boundClaimsType !== 'string' && d.boundClaimsType !== 'glob')
      throw new InvalidInput(`invalid 'bound_claims_type'${quoted(d.boundClaimsType)}: string or glob`);
    r.boundClaimsType = d.boundClaimsType;
  }
  if (d.boundClaims !== undefined) r.boundClaims = boundClaimsOf(d.boundClaims, r.boundClaimsType === 'glob');
  else if (r.boundClaimsType === 'glob') boundClaimsOf(r.boundClaims, true);
}

/** Which claims become metadata, which names the user (required) and which lists the groups. */
function setClaimUse(r: JwtRole, d: RoleInput): void {
  if (d.claimMappings !== undefined) r.claimMappings = checkMappings(d.claimMappings);
  if (d.userClaim !== undefined) r.userClaim = d.userClaim;
  if (!r.userClaim) throw new InvalidInput('a user claim must be defined on the role');
  if (d.userClaimJsonPointer !== undefined) r.userClaimJsonPointer = d.userClaimJsonPointer;
  if (d.groupsClaim !== undefined) r.groupsClaim = d.groupsClaim;
}

/** The role in the reference's read-back names. */
export function roleView(r: JwtRole): Record<string, unknown> {
  return {
    role_type: r.roleType,
    bound_audiences: r.boundAudiences,
    bound_subject: r.boundSubject,
    bound_claims_type: r.boundClaimsType,
    bound_claims: Object.keys(r.boundClaims).length ? r.boundClaims : null,
    claim_mappings: Object.keys(r.claimMappings).length ? r.claimMappings : null,
    user_claim: r.userClaim,
    user_claim_json_pointer: r.userClaimJsonPointer,
    groups_claim: r.groupsClaim,
    clock_skew_leeway: r.clockSkewLeeway,
    expiration_leeway: r.expirationLeeway,
    not_before_leeway: r.notBeforeLeeway,
  };
}
