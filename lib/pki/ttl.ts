/** Validity periods: ttl vs not_after, the lease-TTL rule (lib/lease-ttl.ts), the CA's own expiry. */
import { BadRequest } from '../errors';
import { grantTtl, type TtlInputs, type TtlRule } from '../lease-ttl';

export interface TtlInput {
  ttl?: number | undefined;
  notAfter?: string | undefined;
}

/** The role's and mount's ttl limits (seconds; 0 = not set) and the issuer's NotAfter (ms; undefined for a self-signed root). */
export type TtlLimits = Omit<TtlInputs, 'requested'> & { caNotAfter?: number | undefined };

/** The reference's PKI: a role's max_ttl replaces the mount's; an explicit ttl above it is cut with a warning. */
export const PKI_TTL: TtlRule = { roleMax: 'replaces-mount', aboveMax: 'clamp' };

const NOT_AFTER = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export function parseNotAfter(v: string): number {
  const m = NOT_AFTER.exec(v.trim());
  const ms = m ? Date.parse(v.trim()) : NaN;
  if (!m || Number.isNaN(ms)) throw new BadRequest(`invalid not_after "${v.slice(0, 40)}": expected UTC time as YYYY-MM-ddTHH:MM:SSZ`);
  return ms;
}

/** NotAfter in ms, plus a warning when the ttl was clamped. */
export function resolveNotAfter(now: number, input: TtlInput, limits: TtlLimits): { notAfter: number; warnings: string[] } {
  let notAfter: number;
  let warnings: string[] = [];
  if (input.notAfter) {
    if (input.ttl) throw new BadRequest('either ttl or not_after should be provided, not both');
    notAfter = parseNotAfter(input.notAfter);
    if (notAfter <= now) throw new BadRequest('not_after is in the past');
  } else {
    const granted = grantTtl(PKI_TTL, { ...limits, requested: input.ttl });
    warnings = granted.warnings;
    notAfter = now + granted.ttl * 1000;
  }
  if (limits.caNotAfter !== undefined && notAfter > limits.caNotAfter) {
    throw new BadRequest(
      `cannot satisfy request, as TTL would result in notAfter of ${new Date(notAfter).toISOString()} that is beyond the expiration of the CA certificate at ${new Date(limits.caNotAfter).toISOString()}`,
    );
  }
  return { notAfter, warnings };
}
