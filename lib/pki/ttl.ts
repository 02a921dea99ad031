/** Validity periods: ttl vs not_after, the role or engine maximum, the CA's own expiry. */
import { BadRequest } from '../errors';
import { formatDuration } from '../duration';

export interface TtlInput {
  ttl?: number | undefined;
  notAfter?: string | undefined;
}

export interface TtlLimits {
  /** The role (or engine) default ttl, seconds; 0 = none. */
  defaultTtl: number;
  /** The ceiling, seconds. */
  maxTtl: number;
  /** The issuer's NotAfter (ms); undefined for a self-signed root. */
  caNotAfter?: number | undefined;
  /** An explicit ttl above the maximum is refused instead of clamped. */
  strict?: boolean;
}

const NOT_AFTER = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z$/;

export function parseNotAfter(v: string): number {
  const m = NOT_AFTER.exec(v.trim());
  const ms = m ? Date.parse(v.trim()) : NaN;
  if (!m || Number.isNaN(ms)) throw new BadRequest(`invalid not_after "${v.slice(0, 40)}": expected UTC time as YYYY-MM-ddTHH:MM:SSZ`);
  return ms;
}

/** NotAfter in ms, plus a warning when the ttl was clamped. */
export function resolveNotAfter(now: number, input: TtlInput, limits: TtlLimits): { notAfter: number; warnings: string[] } {
  const warnings: string[] = [];
  let notAfter: number;
  if (input.notAfter) {
    if (input.ttl) throw new BadRequest('either ttl or not_after should be provided, not both');
    notAfter = parseNotAfter(input.notAfter);
    if (notAfter <= now) throw new BadRequest('not_after is in the past');
  } else {
    let ttl = input.ttl || limits.defaultTtl || limits.maxTtl;
    if (!input.ttl && limits.defaultTtl) ttl = Math.min(ttl, limits.maxTtl);
    if (ttl > limits.maxTtl) {
      if (limits.strict) throw new BadRequest(`ttl ${formatDuration(ttl)} is larger than the maximum ${formatDuration(limits.maxTtl)}`);
      warnings.push(`TTL "${formatDuration(ttl)}" is longer than permitted maxTTL "${formatDuration(limits.maxTtl)}", so maxTTL is being used`);
      ttl = limits.maxTtl;
    }
    notAfter = now + ttl * 1000;
  }
  if (limits.caNotAfter !== undefined && notAfter > limits.caNotAfter) {
    throw new BadRequest(
      `cannot satisfy request, as TTL would result in notAfter of ${new Date(notAfter).toISOString()} that is beyond the expiration of the CA certificate at ${new Date(limits.caNotAfter).toISOString()}`,
    );
  }
  return { notAfter, warnings };
}
