/**
 * allowed_user_key_lengths: key types (OpenSSH identifiers or short names) mapped to permitted
 * sizes. Values: an int, a list of ints, or a comma-separated string. A type whose identifier
 * fixes the size (ed25519, ecdsa-sha2-nistp256...) ignores its value.
 */
import { InvalidInput } from '../domain-errors';
import type { UserKey } from './public-key';
import { quoted } from '../quote';

export type KeyLengths = Record<string, number[]>;

const SHORT: Record<string, string> = {
  rsa: 'rsa',
  'ssh-rsa': 'rsa',
  ec: 'ecdsa',
  ecdsa: 'ecdsa',
  dsa: 'dsa',
  'ssh-dss': 'dsa',
  ed25519: 'ed25519',
  'ssh-ed25519': 'ed25519',
};
const FIXED = new Set(['ssh-ed25519', 'ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521']);

function sizes(name: string, v: unknown): number[] {
  const list = Array.isArray(v)
    ? v
    : typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [v];
  return list.map((x) => {
    const n = typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
      throw new InvalidInput(`allowed_user_key_lengths: invalid size for${quoted(name)}`);
    return n;
  });
}

export function parseKeyLengths(raw: unknown): KeyLengths {
  if (raw === undefined || raw === null || raw === '') return {};
  let obj = raw;
  if (typeof raw === 'string') {
    try {
      obj = JSON.parse(raw);
    } catch {
      throw new InvalidInput('allowed_user_key_lengths: expected an object mapping key types to sizes');
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new InvalidInput('allowed_user_key_lengths: expected an object mapping key types to sizes');
  }
  const out: KeyLengths = {};
  for (const [name, v] of Object.entries(obj)) {
    if (!(name in SHORT) && !FIXED.has(name)) throw new InvalidInput(`allowed_user_key_lengths: unknown key type${quoted(name)}`);
    out[name] = sizes(name, v);
  }
  return out;
}

/** Refuses a user key whose type or size the role does not list (no list: anything signable). */
export function checkKeyLength(lengths: KeyLengths, key: UserKey): void {
  const names = Object.keys(lengths);
  if (names.length === 0) return;
  if (names.includes(key.type) && FIXED.has(key.type)) return;
  const short = SHORT[key.type] ?? (key.type.startsWith('ecdsa-') ? 'ecdsa' : key.type);
  const matching = names.filter((n) => n === key.type || SHORT[n] === short);
  if (matching.length === 0) throw new InvalidInput(`key type ${key.type} is not allowed by role`);
  if (short === 'ed25519') return;
  if (!matching.some((n) => lengths[n]!.includes(key.bits)))
    throw new InvalidInput(`key size ${key.bits} of type ${key.type} is not allowed by role`);
}
