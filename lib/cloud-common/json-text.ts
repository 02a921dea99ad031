/** A field that may hold JSON as a string (as the reference engines take it): blank is absent. */
import { InvalidInput } from '../domain-errors';
import { jsonLimitExceeded } from '../http/json-limits';

export const BLANK = Symbol('blank');

/**
 * The parsed value (or `raw` itself when it is not a string), BLANK for a blank string. JSON in a
 * string is held to the limits of every request input (http/json-limits.ts), as `field`.
 */
export function parseJsonText(raw: unknown, invalid: string, field: string): unknown {
  if (typeof raw !== 'string') return raw;
  if (raw.trim() === '') return BLANK;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new InvalidInput(invalid);
  }
  const exceeded = jsonLimitExceeded(v);
  if (exceeded) throw new InvalidInput(`${field} ${exceeded}`);
  return v;
}
