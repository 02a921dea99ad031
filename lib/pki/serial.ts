/** Certificate serial numbers: random (159 bits), colon form out, colon or hyphen form in. */
import { randomBytes } from 'node:crypto';
import { InvalidInput } from '../domain-errors';

const POOL_SIZE = 4000;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** 20 bytes, top bit clear (so < 2^159), never zero-led to keep the length stable. */
export function randomSerial(): Buffer {
  // Drawn from a pooled CSPRNG read (one call per 200 serials: each call has a fixed cost; figures in BENCHMARKS.md), copied out.
  if (poolOffset + 20 > pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const b = Buffer.from(pool.subarray(poolOffset, poolOffset + 20));
  pool.fill(0, poolOffset, poolOffset + 20);
  poolOffset += 20;
  b[0] = (b[0]! & 0x7f) | 0x40;
  return b;
}

export const colonSerial = (serial: Buffer): string => (serial.toString('hex').match(/../g) ?? ['00']).join(':');

/** The storage form: lowercase hex without separators or leading zero bytes. */
export const serialKey = (serial: Buffer): string => {
  let i = 0;
  while (i < serial.length - 1 && serial[i] === 0) i++;
  return serial.subarray(i).toString('hex');
};

/** Reads `aa:bb`, `aa-bb` (any case); refuses anything else. */
export function parseSerial(input: string): Buffer {
  const s = input.trim().toLowerCase();
  if (!/^[0-9a-f]{1,2}([:-][0-9a-f]{1,2}){0,39}$/.test(s))
    throw new InvalidInput(`invalid serial number "${input.slice(0, 80)}": expected hex bytes separated by ":" or "-"`);
  return Buffer.from(s.split(/[:-]/).map((p) => parseInt(p, 16)));
}
