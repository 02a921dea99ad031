/** allowed_user_key_lengths (lib/ssh/key-lengths.ts): its accepted spellings and the check of a key. */
import { describe, expect, it } from 'vitest';
import { checkKeyLength, parseKeyLengths } from '../../lib/ssh/key-lengths';

describe('allowed_user_key_lengths', () => {
  const rsa = (bits: number) => ({ type: 'ssh-rsa', bits, blob: Buffer.alloc(0) });
  const ec = (bits: number) => ({ type: `ecdsa-sha2-nistp${bits}`, bits, blob: Buffer.alloc(0) });
  const ed = { type: 'ssh-ed25519', bits: 256, blob: Buffer.alloc(0) };
  it.each([
    ['short name, one int', { rsa: 2048 }, rsa(2048), true],
    ['short name, wrong size', { rsa: 2048 }, rsa(3072), false],
    ['identifier, list', { 'ssh-rsa': [2048, 4096] }, rsa(4096), true],
    ['comma string', { rsa: '3072, 4096' }, rsa(3072), true],
    ['ec short name', { ec: [256, 384] }, ec(384), true],
    ['ecdsa short name, wrong curve', { ecdsa: 256 }, ec(521), false],
    ['fixed identifier ignores its value', { 'ecdsa-sha2-nistp256': 0 }, ec(256), true],
    ['ed25519 value ignored', { ed25519: 0 }, ed, true],
    ['type not listed', { rsa: 2048 }, ed, false],
    ['a JSON string', '{"ed25519":0}', ed, true],
    ['nothing listed', {}, rsa(2048), true],
  ] as const)('%s', (_w, raw, key, ok) => {
    const run = () => checkKeyLength(parseKeyLengths(raw), key);
    if (ok) expect(run).not.toThrow();
    else expect(run).toThrow(/is not allowed by role/);
  });
  it.each([
    [['rsa'], /expected an object/],
    [{ rsa: 'big' }, /invalid size for "rsa"/],
    [{ rot13: 1 }, /unknown key type "rot13"/],
    ['{nope', /expected an object/],
  ])('refuses %j', (raw, message) => {
    expect(() => parseKeyLengths(raw)).toThrow(message);
  });
});
