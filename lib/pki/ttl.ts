/** Validity periods: ttl vs not_after, the lease-TTL rule (lib/lease-ttl.ts), the CA's own expiry. */
import { InvalidInput } from '../domain-errors';
import { formatDuration } from '../duration';
import { grantTtl, type TtlInputs, type TtlRule } from '../lease-ttl';

export interface TtlInput {
  ttl?: number | undefined;
  /** The request's not_after. */
  notAfter?: string | undefined;
  /** The role's not_after: when set, it is the one used (the request's is ignored) and a ttl beside it is refused, as the reference does. */
  roleNotAfter?: string | undefined;
}

/** The role's and mount's ttl limits (seconds; 0 = not set) and the issuer's NotAfter (ms; undefined for a self-signed root). */
/**
 * The role's and mount's ttl limits, the issuer's NotAfter (ms; undefined for a self-signed
 * root) and what to do past it (the issuer's leaf_not_after_behavior: err, truncate or permit).
 */
export type TtlLimits = Omit<TtlInputs, 'requested'> & { caNotAfter?: number | undefined; pastCa?: 'err' | 'truncate' | 'permit' };

/** The reference's PKI: a role's max_ttl replaces the mount's; an explicit ttl above it is cut with a warning. */
export const PKI_TTL: TtlRule = { roleMax: 'replaces-mount', aboveMax: 'clamp' };

const NOT_AFTER = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export function parseNotAfter(v: string): number {
  const m = NOT_AFTER.exec(v.trim());
  const ms = m ? Date.parse(v.trim()) : NaN;
  if (!m || Number.isNaN(ms)) throw new InvalidInput(`invalid not_after "${v.slice(0, 40)}": expected UTC time as YYYY-MM-ddTHH:MM:SSZ`);
  return ms;
}

interface Resolved {
  notAfter: number;
  warnings: string[];
}

/**
 * An explicit not_after is held to the same maximum as an explicit ttl (the role's max_ttl, else
 * the mount's): the lifetime it asks for goes through the one ttl rule, and a date beyond the
 * maximum is cut to it with a warning, as the reference does since hashicorp/vault#29928.
 */
function boundNotAfter(now: number, value: string, limits: TtlLimits): Resolved {
  const notAfter = parseNotAfter(value);
  if (notAfter <= now) throw new InvalidInput('not_after is in the past');
  const lifetime = Math.ceil((notAfter - now) / 1000);
  const granted = grantTtl(PKI_TTL, { ...limits, requested: lifetime });
  if (granted.ttl >= lifetime) return { notAfter, warnings: [] };
  return {
    notAfter: now + granted.ttl * 1000,
    warnings: [
      `not_after "${value.trim()}" is ${formatDuration(lifetime)} away, longer than permitted maxTTL "${formatDuration(granted.maxTtl)}", so maxTTL is being used`,
    ],
  };
}

function requested(now: number, input: TtlInput, limits: TtlLimits): Resolved {
  const fixed = input.roleNotAfter || input.notAfter;
  if (!fixed) {
    const granted = grantTtl(PKI_TTL, { ...limits, requested: input.ttl });
    return { notAfter: now + granted.ttl * 1000, warnings: granted.warnings };
  }
  if (input.ttl) throw new InvalidInput('either ttl or not_after should be provided, not both');
  const out = boundNotAfter(now, fixed, limits);
  if (input.roleNotAfter && input.notAfter) out.warnings.unshift("the role's not_after is used; the request's not_after is ignored");
  return out;
}

/** NotAfter in ms, plus a warning when the ttl or not_after was cut to the maximum. */
export function resolveNotAfter(now: number, input: TtlInput, limits: TtlLimits): Resolved {
  const { notAfter, warnings } = requested(now, input, limits);
  if (limits.caNotAfter !== undefined && notAfter > limits.caNotAfter) {
    if (limits.pastCa === 'permit') return { notAfter, warnings };
    if (limits.pastCa === 'truncate') return { notAfter: limits.caNotAfter, warnings };
    throw new InvalidInput(
      `cannot satisfy request, as TTL would result in notAfter of ${new Date(notAfter).toISOString()} that is beyond the expiration of the CA certificate at ${new Date(limits.caNotAfter).toISOString()}`,
    );
  }
  return { notAfter, warnings };
}
