/** Certificate serial numbers (lib/pki/serial.ts): random ones, and the colon, hyphen and storage forms. */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { colonSerial, parseSerial, randomSerial, serialKey } from '../../lib/pki/serial';

describe('random serial numbers', () => {
  it('are 20 bytes below 2^159 with a non-zero first byte, and distinct across pool refills', () => {
    const serials = Array.from({ length: 1000 }, () => randomSerial());
    for (const s of serials) {
      expect(s).toHaveLength(20);
      expect(s[0]! & 0x80).toBe(0);
      expect(s[0]! & 0x40).toBe(0x40);
    }
    expect(new Set(serials.map((s) => s.toString('hex'))).size).toBe(1000);
  });
  it('are copies: one handed out keeps its bytes after more are drawn', () => {
    const first = randomSerial();
    const bytes = Buffer.from(first);
    for (let i = 0; i < 500; i++) randomSerial();
    expect(first.equals(bytes)).toBe(true);
  });
});

describe('serial forms', () => {
  it('writes the colon form of every byte, leading zeros kept', () => {
    expect(colonSerial(Buffer.from([0x00, 0x0a, 0xff]))).toBe('00:0a:ff');
    expect(colonSerial(Buffer.alloc(0))).toBe('00');
  });
  it('stores lowercase hex without leading zero bytes (a zero serial keeps one byte)', () => {
    expect(serialKey(Buffer.from([0x00, 0x00, 0x1a, 0x2b]))).toBe('1a2b');
    expect(serialKey(Buffer.from([0x00]))).toBe('00');
    expect(serialKey(Buffer.from([0x00, 0x00]))).toBe('00');
  });
  it.each([
    ['aa:bb:0c', [0xaa, 0xbb, 0x0c]],
    ['AA-BB-0C', [0xaa, 0xbb, 0x0c]],
    ['  1:2:3  ', [1, 2, 3]],
    ['7f', [0x7f]],
  ] as const)('reads %j', (input, bytes) => {
    expect(parseSerial(input)).toEqual(Buffer.from(bytes));
  });
  it('reads back what it writes', () => {
    const s = randomSerial();
    expect(parseSerial(colonSerial(s)).equals(s)).toBe(true);
  });
  it.each(['', 'zz', 'aa::bb', 'aabbc', 'aa bb', ':aa', 'aa:', Array.from({ length: 41 }, () => 'aa').join(':')])(
    'refuses %j with a 400 naming the form',
    (input) => {
      expect(() => parseSerial(input)).toThrow(InvalidInput);
      expect(() => parseSerial(input)).toThrow(/expected hex bytes separated by ":" or "-"/);
    },
  );
});
