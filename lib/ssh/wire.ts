/** The SSH wire encoding (RFC 4251 §5): the few shapes certificates and signatures need. */

export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt.asUintN(64, n));
  return b;
}

/** A length-prefixed byte string. */
export function str(v: Buffer | string): Buffer {
  const b = typeof v === 'string' ? Buffer.from(v, 'utf8') : v;
  return Buffer.concat([u32(b.length), b]);
}

/** A positive multiple-precision integer from big-endian unsigned bytes. */
export function mpint(unsigned: Buffer): Buffer {
  let i = 0;
  while (i < unsigned.length && unsigned[i] === 0) i++;
  let b = unsigned.subarray(i);
  if (b.length > 0 && (b[0]! & 0x80) !== 0) b = Buffer.concat([Buffer.from([0]), b]);
  return str(b);
}

/** Reads length-prefixed strings one after another. */
export class WireReader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}

  string(): Buffer {
    if (this.at + 4 > this.buf.length) throw new Error('truncated SSH data');
    const n = this.buf.readUInt32BE(this.at);
    const start = this.at + 4;
    if (start + n > this.buf.length) throw new Error('truncated SSH data');
    this.at = start + n;
    return this.buf.subarray(start, start + n);
  }

  /** The next `n` bytes as they are (a uint32 or uint64 field). */
  fixed(n: number): Buffer {
    if (this.at + n > this.buf.length) throw new Error('truncated SSH data');
    this.at += n;
    return this.buf.subarray(this.at - n, this.at);
  }

  /** What is left after the strings read so far. */
  rest(): Buffer {
    return this.buf.subarray(this.at);
  }
}

/** Name/value pairs as certificates carry them: sorted by name, non-empty values wrapped once more. */
export function options(map: Record<string, string>): Buffer {
  const names = Object.keys(map).sort();
  return Buffer.concat(names.map((n) => Buffer.concat([str(n), str(map[n] ? str(map[n]!) : Buffer.alloc(0))])));
}
