/** A field that may hold JSON as a string (as the reference engines take it): blank is absent. */
import { BadRequest } from '../errors';

export const BLANK = Symbol('blank');

/** The parsed value (or `raw` itself when it is not a string), BLANK for a blank string. */
export function parseJsonText(raw: unknown, invalid: string): unknown {
  if (typeof raw !== 'string') return raw;
  if (raw.trim() === '') return BLANK;
  try {
    return JSON.parse(raw);
  } catch {
    throw new BadRequest(invalid);
  }
}
