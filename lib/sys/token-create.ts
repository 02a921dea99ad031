/**
 * What a token create request makes, pure, in the reference server's order: the caller's
 * limits, the role's settings, the policies, orphan or child, then period and TTL.
 */
import { InvalidInput } from '../domain-errors';
import { resolvePolicies } from './token-policies';
import type { TokenRole } from './token-roles';
import { calculateTtl } from './token-ttl';
import type { CreateTokenInput } from './tokens';

export interface CreateRequest {
  policies?: string[] | undefined;
  noDefaultPolicy: boolean;
  meta?: Record<string, string> | undefined;
  noParent: boolean;
  displayName: string;
  numUses: number;
  ttl?: number | undefined;
  explicitMaxTtl?: number | undefined;
  period?: number | undefined;
  renewable: boolean;
  type?: string | undefined;
  id?: string | undefined;
  entityAlias?: string | undefined;
}

export interface Caller {
  accessor: string;
  policies: string[];
  /** 0: the caller's token never expires. */
  expireTime: number;
  numUses: number;
  /** Root, or sudo on the create path. */
  sudo: boolean;
  /** The caller's CIDR blocks: every token it makes is bound to them (a child may narrow them, never widen). */
  boundCidrs: readonly string[];
  /** What a child of the caller records as its ancestors (undefined: not known, an older record). */
  childAncestors?: string[] | undefined;
}

export interface CreateContext {
  /** The path under auth/token/ the request came to: "create", "create-orphan", "create/<role>". */
  path: string;
  /** create-orphan: the new token has no parent (the path's own policy governs that). */
  orphan: boolean;
  role?: TokenRole | undefined;
  /** Seconds since the epoch. */
  now: number;
}

function checkType(type: string | undefined, role: TokenRole | undefined): void {
  if (role?.tokenType === 'service') return;
  const t = (type ?? '').trim().toLowerCase();
  if (t === '' || t === 'service') return;
  if (t === 'batch') throw new InvalidInput('batch tokens are not supported; use "service"');
  throw new InvalidInput("invalid 'token_type' value");
}

function checkUnsupported(r: CreateRequest, caller: Caller): void {
  if (caller.numUses > 0) throw new InvalidInput('restricted use token cannot generate child tokens');
  if (r.id) throw new InvalidInput('custom token ids are not supported: tokens are always generated');
  if (r.entityAlias) throw new InvalidInput("invalid 'entity_alias' value: entity aliases are not supported");
}

function displayName(name: string): string {
  if (!name) return 'token';
  return `token-${name}`
    .replace(/[^a-zA-Z0-9-]/g, '-')
    .replace(/-$/, '')
    .slice(0, 128);
}

/** The role lowers num_uses (0 is unlimited, so any limit is lower). */
function numUses(asked: number, role: TokenRole | undefined): number {
  if (!role?.tokenNumUses) return asked;
  return asked === 0 ? role.tokenNumUses : Math.min(asked, role.tokenNumUses);
}

/** The lesser of the request's and the role's value when both are set, with the reference's warning. */
function lesser(asked: number, fromRole: number, what: string, warnings: string[]): number {
  if (!fromRole) return asked;
  if (!asked) return fromRole;
  const v = Math.min(asked, fromRole);
  warnings.push(`${what} specified both during creation call and in role; using the lesser value of ${v} seconds`);
  return v;
}

function parentOf(r: CreateRequest, caller: Caller, ctx: CreateContext): string {
  if (ctx.role) return ctx.role.orphan ? '' : caller.accessor;
  if (r.noParent) {
    if (!caller.sudo) throw new InvalidInput('root or sudo privileges required to create orphan token');
    return '';
  }
  return ctx.orphan ? '' : caller.accessor;
}

function lifetime(r: CreateRequest, caller: Caller, ctx: CreateContext, policies: string[], warnings: string[]) {
  const role = ctx.role;
  if (r.period && !caller.sudo) throw new InvalidInput('root or sudo privileges required to create periodic token');
  const explicitMaxTtl = lesser(r.explicitMaxTtl ?? 0, role?.tokenExplicitMaxTtl ?? 0, 'Explicit max TTL', warnings);
  const period = lesser(r.period ?? 0, role?.tokenPeriod ?? 0, 'Period', warnings);
  let ttl = r.ttl || role?.tokenTtl || 0;
  if (period > 0 || ttl > 0 || !policies.includes('root')) {
    const calc = calculateTtl({ increment: 0, ttl, period, explicitMaxTtl, maxTtl: role?.tokenMaxTtl ?? 0, start: ctx.now, now: ctx.now });
    warnings.push(...calc.warnings);
    ttl = calc.ttl;
  }
  if (ttl === 0 && explicitMaxTtl > 0) ttl = explicitMaxTtl;
  if (ttl === 0 && caller.expireTime !== 0) throw new InvalidInput('expiring root tokens cannot create non-expiring root tokens');
  return { ttl, explicitMaxTtl, period };
}

export function planToken(r: CreateRequest, caller: Caller, ctx: CreateContext): { input: CreateTokenInput; warnings: string[] } {
  checkUnsupported(r, caller);
  const role = ctx.role;
  checkType(r.type, role);
  const warnings: string[] = [];
  const policies = resolvePolicies({
    requested: r.policies,
    noDefaultPolicy: r.noDefaultPolicy,
    role,
    parentPolicies: caller.policies,
    sudo: caller.sudo,
  });
  const parent = parentOf(r, caller, ctx);
  const { ttl, explicitMaxTtl, period } = lifetime(r, caller, ctx, policies, warnings);
  const input: CreateTokenInput = {
    policies,
    display_name: displayName(r.displayName),
    meta: r.meta ?? {},
    num_uses: numUses(r.numUses, role),
    ttl,
    explicit_max_ttl: explicitMaxTtl,
    // A token that never expires is not advertised as renewable.
    renewable: ttl !== 0 && r.renewable && (role?.renewable ?? true),
    parent,
    path: `auth/token/${ctx.path}${role?.pathSuffix ? `/${role.pathSuffix}` : ''}`,
    period,
    role: role?.name ?? '',
    ...(caller.boundCidrs.length ? { bound_cidrs: [...caller.boundCidrs] } : {}),
    ...(parent && caller.childAncestors ? { ancestors: caller.childAncestors } : {}),
  };
  return { input, warnings };
}
