/**
 * The lease-TTL rule, once for every engine, as the reference server computes it.
 *
 * The TTL granted is the request's ttl, else the role's, else the mount's default; it is limited
 * by the effective maximum. The mount's maximum is already the mount's or the system's (as the
 * reference's SystemView.MaxLeaseTTL). Where the reference's engines differ, the difference is a
 * parameter of this one rule, not a copy of it:
 * - `roleMax: 'within-mount'` (a lease, the core's CalculateTTL: cloud credentials, SSH OTP and
 *   dynamic keys): the role's max_ttl can only lower the mount's maximum.
 *   `roleMax: 'replaces-mount'` (a certificate: PKI and SSH signing): a role's max_ttl, when set,
 *   is the maximum, in place of the mount's.
 * - `aboveMax: 'clamp'` (PKI): an explicit ttl above the maximum is cut to it with a warning;
 *   `'refuse'` (SSH signing): an explicit ttl above the maximum is refused. A ttl that was not
 *   asked for (the role's or the mount's default) is always cut to the maximum silently.
 */
import { InvalidInput } from './domain-errors';
import { formatDuration } from './duration';

export interface TtlRule {
  roleMax: 'within-mount' | 'replaces-mount';
  aboveMax: 'clamp' | 'refuse';
  /** The refusal's message, for `aboveMax: 'refuse'`. */
  refusal?: (ttl: number, maxTtl: number) => string;
}

/** All in seconds; 0 = not set. */
export interface TtlInputs {
  requested?: number | undefined;
  roleTtl?: number;
  roleMaxTtl?: number;
  mountDefaultTtl: number;
  mountMaxTtl: number;
}

export interface GrantedTtl {
  ttl: number;
  maxTtl: number;
  warnings: string[];
}

export const LEASE: TtlRule = { roleMax: 'within-mount', aboveMax: 'clamp' };

/** The effective maximum under the rule. */
export function maxTtlOf(rule: TtlRule, roleMaxTtl: number, mountMaxTtl: number): number {
  if (!(roleMaxTtl > 0)) return mountMaxTtl;
  return rule.roleMax === 'replaces-mount' ? roleMaxTtl : Math.min(roleMaxTtl, mountMaxTtl);
}

export function grantTtl(rule: TtlRule, t: TtlInputs): GrantedTtl {
  const maxTtl = maxTtlOf(rule, t.roleMaxTtl ?? 0, t.mountMaxTtl);
  if (!t.requested) return { ttl: Math.min(t.roleTtl || t.mountDefaultTtl || maxTtl, maxTtl), maxTtl, warnings: [] };
  if (t.requested <= maxTtl) return { ttl: t.requested, maxTtl, warnings: [] };
  if (rule.aboveMax === 'refuse') {
    throw new InvalidInput(
      rule.refusal
        ? rule.refusal(t.requested, maxTtl)
        : `ttl ${formatDuration(t.requested)} is larger than the maximum ${formatDuration(maxTtl)}`,
    );
  }
  const warning = `TTL "${formatDuration(t.requested)}" is longer than permitted maxTTL "${formatDuration(maxTtl)}", so maxTTL is being used`;
  return { ttl: maxTtl, maxTtl, warnings: [warning] };
}
