/**
 * Which names the catalog accepts. Keys and names become storage keys and ACL paths
 * (`catalog/kv/<key>`, `catalog/node/<name>`), so they are bounded and cannot climb out of
 * their place: no leading `/` or `..` segment in a key, no `/` in a node, service or check name.
 */
import { InvalidInput } from '../domain-errors';

export const MAX_KEY_BYTES = 512;
export const MAX_NAME_BYTES = 256;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A KV key (or prefix, when `allowEmpty`). */
export function checkKey(key: string, allowEmpty = false): string {
  if (key === '') {
    if (allowEmpty) return key;
    throw new InvalidInput('Missing key name');
  }
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new InvalidInput(`Invalid key name: longer than ${MAX_KEY_BYTES} bytes`);
  if (key.startsWith('/')) throw new InvalidInput("Invalid key name: it must not begin with a '/'");
  if (CONTROL.test(key)) throw new InvalidInput('Invalid key name: it contains a non-printable character');
  if (key.includes('\\') || key.split('/').some((s) => s === '..' || s === '.')) {
    throw new InvalidInput('Invalid key name: it contains a path traversal sequence');
  }
  return key;
}

/** A node, service, service ID or check ID. `what` names it in the message. */
export function checkName(name: string, what: string): string {
  if (name === '') throw new InvalidInput(`Missing ${what}`);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) throw new InvalidInput(`Invalid ${what}: longer than ${MAX_NAME_BYTES} bytes`);
  if (name.includes('/')) throw new InvalidInput(`Invalid ${what}: it must not contain '/'`);
  if (CONTROL.test(name)) throw new InvalidInput(`Invalid ${what}: it contains a non-printable character`);
  return name;
}

const MAX_FLAGS = 2n ** 64n - 1n;

/** `?flags=`: an unsigned 64-bit integer, a bigint above 2^53 - 1 (JSON numbers lose precision there). */
export function parseFlags(raw: string): number | bigint {
  const t = raw.trim();
  if (!/^\d{1,20}$/.test(t) || BigInt(t) > MAX_FLAGS) throw new InvalidInput('Invalid flags: expected an unsigned integer below 2^64');
  const n = BigInt(t);
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
}

/** An unsigned integer query parameter (`cas`, `index`), at most 2^53 - 1. */
export function parseUint(raw: string, what: string): number {
  if (!/^\d{1,16}$/.test(raw.trim()) || !Number.isSafeInteger(Number(raw))) {
    throw new InvalidInput(`Invalid ${what}: expected an unsigned integer below 2^53`);
  }
  return Number(raw);
}
