/**
 * The small parsers and generators of the approle method: uuid-shaped random identifiers (role
 * ids, secret ids, accessors), secret id metadata as the reference accepts it, role names, and
 * the subset rule between a secret id's CIDR blocks and its role's.
 */
import { authRoleName } from '../role-name';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { InvalidInput } from '../../domain-errors';
import { ipInBlocks } from '../../net/cidr';

/** 128 random bits written as a uuid (8-4-4-4-12 hex), as the reference's generator writes them. */
export function randomId(): string {
  const h = randomBytes(16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The reference's limit on anything it HMACs (role names, role ids, secret ids). */
export const MAX_ID_LENGTH = 4096;

/**
 * Role names: the reference's `\w(([\w-.]+)?\w)?`, lower case only. The reference folds names to
 * lower case; here another spelling is refused instead, so that a policy on `role/prod` cannot be
 * read past as `role/PROD`.
 */
/** A role name in a path: the auth methods' one rule (lib/auth/role-name.ts). */
export const checkRoleName = authRoleName;

/** A role id or secret id a caller chose: non-blank, at most the reference's HMAC input limit. */
export function checkChosenId(value: string, field: string): string {
  if (!value.trim()) throw new InvalidInput(`missing ${field}`);
  if (value.length > MAX_ID_LENGTH) throw new InvalidInput(`${field} is longer than the maximum of ${MAX_ID_LENGTH} bytes`);
  return value;
}

/**
 * Secret id metadata as the reference parses it: a JSON object of strings (as hvac sends it,
 * `json.dumps`), the same JSON base64-encoded, `k=v,k2=v2` pairs, or an object sent as such.
 */
export function parseMetadata(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw === 'object' && !Array.isArray(raw)) return stringMap(raw);
  if (typeof raw !== 'string') throw new InvalidInput('failed to parse metadata: expected a JSON object of strings');
  const text = raw.trim();
  if (text.startsWith('{')) return stringMap(parseJson(text));
  if (/^[A-Za-z0-9+/]+=*$/.test(text)) {
    const decoded = Buffer.from(text, 'base64').toString('utf8').trim();
    if (decoded.startsWith('{')) return stringMap(parseJson(decoded));
  }
  const out: Record<string, string> = {};
  for (const pair of text.split(',').filter((p) => p.trim())) {
    const i = pair.indexOf('=');
    if (i <= 0) throw new InvalidInput('failed to parse metadata: expected a JSON object of strings or key=value pairs');
    setKey(out, pair.slice(0, i).trim(), pair.slice(i + 1).trim());
  }
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidInput('failed to parse metadata: invalid JSON');
  }
}

function stringMap(v: unknown): Record<string, string> {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new InvalidInput('failed to parse metadata: expected a JSON object of strings');
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) {
    if (typeof x !== 'string') throw new InvalidInput('failed to parse metadata: every value must be a string');
    setKey(out, k, x);
  }
  return out;
}

function setKey(out: Record<string, string>, k: string, v: string): void {
  if (k === 'role_name') throw new InvalidInput('failed to parse metadata: "role_name" is reserved');
  Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Every block of `inner` lies inside one of `outer` (an empty `outer` contains everything). */
export function cidrsWithin(inner: string[], outer: string[]): boolean {
  if (outer.length === 0) return true;
  return inner.every((block) => {
    const [addr = '', prefixText] = block.split('/');
    const fam = isIP(addr);
    const prefix = prefixText === undefined ? (fam === 4 ? 32 : 128) : Number(prefixText);
    return outer.some((o) => {
      const [oAddr = '', oPrefixText] = o.split('/');
      const oPrefix = oPrefixText === undefined ? (isIP(oAddr) === 4 ? 32 : 128) : Number(oPrefixText);
      return isIP(oAddr) === fam && oPrefix <= prefix && ipInBlocks(addr, [o]);
    });
  });
}
