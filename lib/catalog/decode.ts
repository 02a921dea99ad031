/**
 * Reading the reference catalog's JSON bodies: field names match case-insensitively (as Go's
 * decoder does, so `node` and `Node` are the same field) and every wrong type is a 400 naming
 * the field, in the reference's "Request decode failed" wording.
 */
import { InvalidInput } from '../domain-errors';
import { jsonLimitExceeded } from '../http/json-limits';
import type { StringMap } from './records';

export type Obj = Record<string, unknown>;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function fail(path: string, what: string): never {
  throw new InvalidInput(`Request decode failed: ${path}: ${what}`);
}

export function parseJsonObject(text: string): Obj {
  if (text.trim() === '') fail('body', 'expected a JSON object, got an empty body');
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    fail('body', 'not valid JSON');
  }
  const exceeded = jsonLimitExceeded(v);
  if (exceeded) throw new InvalidInput(`Request decode failed: the request body ${exceeded}`);
  if (!isObj(v)) fail('body', 'expected a JSON object');
  return v;
}

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of `name` in `o`: the exact key first, else a case-insensitive match. Own keys only. */
export function pick(o: Obj, name: string): unknown {
  if (Object.hasOwn(o, name)) return o[name];
  const lower = name.toLowerCase();
  const k = Object.keys(o).find((x) => x.toLowerCase() === lower);
  return k === undefined ? undefined : o[k];
}

export function optString(o: Obj, name: string, path: string, maxBytes = 256): string {
  const v = pick(o, name);
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') fail(`${path}${name}`, 'expected a string');
  if (Buffer.byteLength(v) > maxBytes) fail(`${path}${name}`, `longer than ${maxBytes} bytes`);
  if (CONTROL.test(v)) fail(`${path}${name}`, 'contains a non-printable character');
  return v;
}

export function optBool(o: Obj, name: string, path: string): boolean {
  const v = pick(o, name);
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') fail(`${path}${name}`, 'expected true or false');
  return v;
}

export function optPort(o: Obj, name: string, path: string): number {
  const v = pick(o, name);
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535) fail(`${path}${name}`, 'expected a port number (0-65535)');
  return v;
}

export function optObject(o: Obj, name: string, path: string): Obj | undefined {
  const v = pick(o, name);
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) fail(`${path}${name}`, 'expected an object');
  return v;
}

export function optStrings(o: Obj, name: string, path: string, max = 128): string[] {
  const v = pick(o, name);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail(`${path}${name}`, 'expected an array of strings');
  if (v.length > max) fail(`${path}${name}`, `more than ${max} entries`);
  return v.map((x, i) => {
    if (typeof x !== 'string' || Buffer.byteLength(x) > 256 || CONTROL.test(x))
      fail(`${path}${name}[${i}]`, 'expected a printable string of at most 256 bytes');
    return x;
  });
}

/**
 * An object of strings (meta, tagged addresses); `keyRule` checks the keys. Every key is kept
 * as data, `__proto__`, `constructor` and `toString` included: the map is built as own
 * properties (never by assignment, which would set a prototype or drop the key).
 */
export function optStringMap(o: Obj, name: string, path: string, keyRule = /^[A-Za-z0-9_-]{1,128}$/): StringMap | null {
  const m = optObject(o, name, path);
  if (!m) return null;
  const entries = Object.entries(m);
  if (entries.length > 64) fail(`${path}${name}`, 'more than 64 entries');
  for (const [k, v] of entries) {
    if (!keyRule.test(k))
      fail(`${path}${name}`, `invalid key ${JSON.stringify(k.slice(0, 64))}: use letters, digits, _ and - (at most 128)`);
    if (typeof v !== 'string' || Buffer.byteLength(v) > 512 || CONTROL.test(v))
      fail(`${path}${name}.${k}`, 'expected a printable string of at most 512 bytes');
  }
  return entries.length ? (Object.fromEntries(entries) as StringMap) : null;
}
