/**
 * Reading a verified token's claims as the reference does: a claim is named by its key, or by a
 * JSON pointer (RFC 6901) when it starts with "/" ("/kubernetes.io/namespace"); bound claims
 * match exactly or by `*` globs; mapped claims become metadata. No HTTP here.
 */
import { InvalidInput } from '../../domain-errors';

export type Claims = Record<string, unknown>;

function own(o: unknown, key: string): unknown {
  if (typeof o !== 'object' || o === null) return undefined;
  if (Array.isArray(o)) return /^(0|[1-9]\d*)$/.test(key) ? o[Number(key)] : undefined;
  return Object.prototype.hasOwnProperty.call(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/** The value at a JSON pointer ("" is the whole document), or undefined. */
export function pointerGet(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) return undefined;
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    cur = own(cur, raw.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * A claim by name, or by JSON pointer when the name starts with "/". Numbers read as their
 * integer text (the reference converts them to json.Number), so "run_id": 123 matches "123".
 */
export function getClaim(claims: Claims, name: string): unknown {
  const v = name.startsWith('/') ? pointerGet(claims, name) : own(claims, name);
  if (typeof v === 'number') return String(Math.trunc(v));
  return v ?? undefined;
}

/** `*` matches any run of characters (the reference's go-glob); nothing else is special. */
export function globMatch(pattern: string, value: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === value;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false;
  let at = first.length;
  const end = value.length - last.length;
  for (const mid of parts.slice(1, -1)) {
    const i = value.indexOf(mid, at);
    if (i < 0 || i + mid.length > end) return false;
    at = i + mid.length;
  }
  return true;
}

/** A claim value as the list the reference compares (strings, booleans, numbers as text). */
function normalizeList(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'number' ? String(Math.trunc(x)) : x));
  if (typeof v === 'string' || typeof v === 'boolean') return [v];
  return undefined;
}

export type BoundClaims = Record<string, string | string[]>;

/** Every bound claim must be present and match one of its values. Throws naming the claim (never its value). */
export function checkBoundClaims(claims: Claims, bound: BoundClaims, glob: boolean): void {
  for (const [name, expected] of Object.entries(bound)) {
    const actual = getClaim(claims, name);
    if (actual === undefined || actual === null) throw new InvalidInput(`claim "${name}" is missing`);
    const actVals = normalizeList(actual);
    if (!actVals) throw new InvalidInput(`claim "${name}" is not a string, bool, number or list`);
    const expVals = Array.isArray(expected) ? expected : [expected];
    const found = expVals.some((e) =>
      actVals.some((a) => (glob ? typeof a === 'string' && globMatch(e, a) : a === e || (typeof a === 'boolean' && String(a) === e))),
    );
    if (!found) throw new InvalidInput(`claim "${name}" does not match any associated bound claim values`);
  }
}

/** Metadata from the mapped claims: `{ claim (or pointer): metadata key }`; absent claims are left out. */
export function mappedMetadata(claims: Claims, mappings: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [source, target] of Object.entries(mappings)) {
    const v = getClaim(claims, source);
    if (v === undefined || v === null) continue;
    if (typeof v === 'boolean') out[target] = String(v);
    else if (typeof v === 'string') out[target] = v;
    else throw new InvalidInput(`error converting claim "${source}" to string`);
  }
  return out;
}

/** The user claim's value (the alias name): present and a string. */
export function userName(claims: Claims, userClaim: string, jsonPointer: boolean): string {
  const v = jsonPointer ? getClaim(claims, userClaim) : own(claims, userClaim);
  if (v === undefined || v === null) throw new InvalidInput(`claim "${userClaim}" not found in token`);
  if (typeof v !== 'string') throw new InvalidInput(`claim "${userClaim}" could not be converted to string`);
  return v;
}
