/**
 * A token's time to live, at creation and at each renewal, as the reference server computes it:
 * the effective maximum is the system maximum or a smaller role maximum or explicit_max_ttl; a periodic token
 * gets its period every time (no lifetime limit but explicit_max_ttl); any other token gets
 * the increment, its own TTL or the default, never past its start plus the maximum.
 */
import { SYSTEM_DEFAULT_LEASE_TTL, SYSTEM_MAX_LEASE_TTL } from '../config';
import { InvalidInput } from '../domain-errors';

export interface TtlInput {
  /** The TTL asked for at a renewal (0: none). */
  increment: number;
  /** The token's own TTL: asked at creation, or granted last (0: the default). */
  ttl: number;
  period: number;
  explicitMaxTtl: number;
  /** A smaller maximum than the system's, from a token role (0: none). */
  maxTtl: number;
  /** When the token was created, seconds since the epoch. */
  start: number;
  now: number;
}

/** As the reference prints durations in warnings: "1h", "1h30m", "45s". */
export function humanDuration(seconds: number): string {
  if (seconds === 0) return '0s';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}

export function calculateTtl(i: TtlInput): { ttl: number; warnings: string[] } {
  const warnings: string[] = [];
  const max = Math.min(SYSTEM_MAX_LEASE_TTL, ...[i.maxTtl, i.explicitMaxTtl].filter((t) => t > 0));
  let ttl: number;
  let limit: number | undefined;
  if (i.period > 0) {
    ttl = i.period;
    if (ttl > max) {
      warnings.push(
        `period of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(max)}"; period value is capped accordingly`,
      );
      ttl = max;
    }
    if (i.explicitMaxTtl > 0) limit = i.start + i.explicitMaxTtl;
  } else {
    ttl = i.increment || i.ttl || SYSTEM_DEFAULT_LEASE_TTL;
    limit = i.start + max;
  }
  if (limit !== undefined) {
    const left = limit - i.now;
    if (left <= 0) throw new InvalidInput('past the max TTL, cannot renew');
    if (ttl > left) {
      warnings.push(
        `TTL of "${humanDuration(ttl)}" exceeded the effective max_ttl of "${humanDuration(left)}"; TTL value is capped accordingly`,
      );
      ttl = left;
    }
  }
  return { ttl, warnings };
}
