/**
 * The registered claims a verified token must satisfy, checked as the reference's validator
 * (hashicorp/cap jwt.Validate) does: issuer, subject, audience, then time with leeways
 * (0 = the default, -1 = none). Messages name the claim, never its value.
 */
import { InvalidInput } from '../../domain-errors';
import type { Claims } from './claims';

export const DEFAULT_CLAIM_LEEWAY = 150;
export const DEFAULT_CLOCK_SKEW_LEEWAY = 60;

export interface Expected {
  issuer: string;
  subject: string;
  audiences: string[];
  /** Seconds: > 0 as given, 0 the default, < 0 none. */
  clockSkewLeeway: number;
  expirationLeeway: number;
  notBeforeLeeway: number;
}

function leeway(v: number, dflt: number): number {
  return v < 0 ? 0 : v === 0 ? dflt : v;
}

function numericDate(claims: Claims, name: string): number {
  const v = claims[name];
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new InvalidInput(`invalid ${name} claim: not a number`);
  return Math.trunc(v);
}

function audiences(claims: Claims): string[] {
  const aud = claims.aud;
  if (aud === undefined || aud === null) return [];
  if (typeof aud === 'string') return aud === '' ? [] : [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) return aud;
  throw new InvalidInput('invalid audience (aud) claim: not a string or a list of strings');
}

/** Throws InvalidInput naming the first claim that does not hold. `now` in seconds. */
export function checkExpected(claims: Claims, e: Expected, now: number): void {
  if (e.issuer && claims.iss !== e.issuer) throw new InvalidInput('invalid issuer (iss) claim');
  if (e.subject && claims.sub !== e.subject) throw new InvalidInput('invalid subject (sub) claim');
  const aud = audiences(claims);
  if (e.audiences.length && !e.audiences.some((a) => aud.includes(a))) {
    throw new InvalidInput('invalid audience (aud) claim: audience claim does not match any expected audience');
  }
  // The reference's own rule on top: a token for some audience is refused by a role bound to none.
  if (!e.audiences.length && aud.length) throw new InvalidInput('audience claim found in JWT but no audiences bound to the role');

  const iat = numericDate(claims, 'iat');
  let exp = numericDate(claims, 'exp');
  let nbf = numericDate(claims, 'nbf');
  if (!iat && !exp && !nbf) throw new InvalidInput('no issued at (iat), not before (nbf), or expiration time (exp) claims in token');
  if (!exp) exp = Math.max(iat, nbf) + leeway(e.expirationLeeway, DEFAULT_CLAIM_LEEWAY);
  if (!nbf) nbf = iat || exp - leeway(e.notBeforeLeeway, DEFAULT_CLAIM_LEEWAY);
  const skew = leeway(e.clockSkewLeeway, DEFAULT_CLOCK_SKEW_LEEWAY);
  if (now + skew < nbf) throw new InvalidInput('invalid not before (nbf) claim: token not yet valid');
  if (now - skew > exp) throw new InvalidInput('invalid expiration time (exp) claim: token is expired');
  if (iat && now + skew < iat) throw new InvalidInput('invalid issued at (iat) claim: token issued in the future');
}
