/**
 * Parameter constraints (allowed, denied and required parameters) decided on the values the
 * handler will use, not on the spelling sent. A list is checked element by element, whatever its
 * spelling (a JSON array, "a,b", spaces, empty elements): every element must be allowed and none
 * denied. A map is checked entry by entry (`key=value`: policies write map rules so). A duration compares as seconds ("1h"
 * in a policy holds against 3600 sent), a boolean or an integer as such, and a value the handler
 * treats case-insensitively in lower case. Strings keep the reference server's globs (a leading
 * and/or trailing `*`). A parameter sent under an alias is held to the rules of both names.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseBool } from '../booleans';
import { parseDuration } from '../duration';
import { canonicalAddress } from '../net/cidr';
import type { AccessParam, CompareAs } from '../types';
import type { Permissions } from './policy-rules';

/** The parameters of a request as sent, with no field to say how its handler reads them. */
export function paramsAsSent(data: Record<string, unknown>): AccessParam[] {
  return Object.keys(data).map((name) => ({ names: [name.toLowerCase()], value: data[name] }));
}

/** Whether `params` satisfy the parameter constraints of `perms`. */
export function parametersAllowed(perms: Permissions, params: readonly AccessParam[]): boolean {
  const sent = params.filter((p) => !p.derived);
  if (perms.required.some((r) => !sent.some((p) => p.names.includes(r)))) return false;
  if (!params.length) return true;
  const denied = perms.denied;
  if (denied?.size) {
    if (denied.has('*') && sent.length) return false;
    for (const p of params) {
      for (const n of p.names) {
        const list = denied.get(n);
        if (list && anyDenied(p, list)) return false;
      }
    }
  }
  const allowed = perms.allowed;
  if (!allowed?.size) return true;
  const any = allowed.has('*');
  if (any && allowed.size === 1) return true;
  for (const p of params) {
    // The name sent must be allowed (or `*`); its value must pass every allowed list of its names.
    if (!p.derived && !allowed.has(p.names[0]!) && !any) return false;
    for (const n of p.names) {
      const list = allowed.get(n);
      if (list && !allAllowed(p, list)) return false;
    }
  }
  return true;
}

/** An empty list denies every value; else a value (or any element of a list) in it is denied. */
function anyDenied(p: AccessParam, list: unknown[]): boolean {
  if (list.length === 0 || wholeIn(p.value, list)) return true;
  return elements(p).some((v) => scalarIn(v, list, p));
}

/** An empty list allows every value; else the value (or every element of a list) must be in it. */
function allAllowed(p: AccessParam, list: unknown[]): boolean {
  if (list.length === 0 || wholeIn(p.value, list)) return true;
  return elements(p).every((v) => scalarIn(v, list, p));
}

/**
 * What a constraint is checked on: a list's items, a map's `key=value` entries, else the value
 * itself. An empty list is checked as the empty string, as the reference sees `""` sent.
 */
function elements(p: AccessParam): unknown[] {
  const v = p.value;
  if (Array.isArray(v)) return v.length ? v : [''];
  if (p.kind === 'map' && v !== null && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => `${k}=${String(x)}`);
    return entries.length ? entries : [''];
  }
  return [v];
}

/** A non-scalar value (a list, a map) deep-equal to a list entry: as the reference compares it. */
function wholeIn(v: unknown, list: unknown[]): boolean {
  return v !== null && typeof v === 'object' && list.some((el) => isDeepStrictEqual(el, v));
}

function scalarIn(v: unknown, list: unknown[], p: AccessParam): boolean {
  switch (p.kind) {
    case 'duration':
      return list.some((el) => parseDuration(el) !== undefined && parseDuration(el) === parseDuration(v));
    case 'bool':
      return list.some((el) => parseBool(el) !== undefined && parseBool(el) === parseBool(v));
    case 'int':
      return list.some((el) => asInt(el) !== undefined && asInt(el) === asInt(v));
    default:
      return list.some((el) => sameValue(el, v, p.compareAs));
  }
}

function asInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? v : undefined;
  return typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : undefined;
}

function sameValue(el: unknown, v: unknown, compareAs: CompareAs | undefined): boolean {
  if (typeof el === 'string' && typeof v === 'string') {
    if (compareAs === 'lower-case') return globMatch(el.toLowerCase(), v.toLowerCase());
    if (compareAs === 'address') return globMatch(canonicalAddress(el), canonicalAddress(v));
    return globMatch(el, v);
  }
  if (el === null || v === null || el === undefined || v === undefined) return el === v;
  // A scalar rule against a scalar sent with another JSON type ("3" against 3) compares as text,
  // as the handler would read it; objects only whole.
  if (typeof el !== 'object' && typeof v !== 'object' && typeof el !== typeof v) return globMatch(String(el), String(v));
  return isDeepStrictEqual(el, v);
}

export function globMatch(item: string, value: string): boolean {
  if (item.length < 2) return item === value;
  const head = item.startsWith('*');
  const tail = item.endsWith('*');
  if (head && tail) return value.includes(item.slice(1, -1));
  if (head) return value.endsWith(item.slice(1));
  if (tail) return value.startsWith(item.slice(0, -1));
  return item === value;
}
