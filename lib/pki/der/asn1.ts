/**
 * A minimal DER encoder: just the types X.509 certificates and CRLs need. Every function
 * returns the complete encoding (tag, length, value) as a Buffer.
 */
const headerSize = (n: number): number => (n < 0x80 ? 2 : n < 0x100 ? 3 : n < 0x10000 ? 4 : n < 0x1000000 ? 5 : 6);

/** Writes tag and length at `out[0..]`; returns the header size. */
function writeHeader(out: Buffer, tag: number, n: number): number {
  const h = headerSize(n);
  out[0] = tag;
  if (h === 2) out[1] = n;
  else {
    out[1] = 0x80 | (h - 2);
    for (let i = h - 1, v = n; i >= 2; i--, v = Math.floor(v / 256)) out[i] = v & 0xff;
  }
  return h;
}

export function tlv(tag: number, value: Buffer): Buffer {
  const out = Buffer.allocUnsafe(headerSize(value.length) + value.length);
  value.copy(out, writeHeader(out, tag, value.length));
  return out;
}

/** A constructed value from its encoded parts (undefined parts are skipped), copied once. */
function constructed(tag: number, items: (Buffer | undefined)[]): Buffer {
  let n = 0;
  for (const i of items) if (i) n += i.length;
  const out = Buffer.allocUnsafe(headerSize(n) + n);
  let off = writeHeader(out, tag, n);
  for (const i of items) if (i) off += i.copy(out, off);
  return out;
}

export const seq = (...items: (Buffer | undefined)[]): Buffer => constructed(0x30, items);
export const set = (...items: Buffer[]): Buffer => constructed(0x31, items);
export const bool = (v: boolean): Buffer => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const nul = (): Buffer => Buffer.from([0x05, 0x00]);
export const octets = (v: Buffer): Buffer => tlv(0x04, v);
export const utf8 = (s: string): Buffer => tlv(0x0c, Buffer.from(s, 'utf8'));
export const printable = (s: string): Buffer => tlv(0x13, Buffer.from(s, 'latin1'));
export const ia5 = (s: string): Buffer => tlv(0x16, Buffer.from(s, 'latin1'));
/** A BIT STRING with no unused bits. */
export const bits = (v: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), v]));
/** [n] EXPLICIT (constructed). */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
/** [n] IMPLICIT primitive. */
export const implicit = (n: number, value: Buffer): Buffer => tlv(0x80 | n, value);
/** [n] IMPLICIT constructed (replaces a SEQUENCE tag). */
export const implicitConstructed = (n: number, value: Buffer): Buffer => tlv(0xa0 | n, value);

/** An unsigned INTEGER from big-endian magnitude bytes. */
export function uint(magnitude: Buffer): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  let v = magnitude.subarray(i);
  if (v.length === 0) v = Buffer.from([0]);
  if ((v[0] ?? 0) & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return tlv(0x02, v);
}

export function int(n: number): Buffer {
  if (n < 0) throw new RangeError('negative integers are not encoded here');
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return uint(Buffer.from(bytes.length ? bytes : [0]));
}

const oidCache = new Map<string, Buffer>();

/** OBJECT IDENTIFIER; encodings are memoised (the same few OIDs appear in every certificate). */
export function oid(dotted: string): Buffer {
  let hit = oidCache.get(dotted);
  if (!hit) {
    hit = encodeOid(dotted);
    if (oidCache.size < 4096) oidCache.set(dotted, hit);
  }
  return hit;
}

function encodeOid(dotted: string): Buffer {
  const parts = dotted.split('.').map((p) => {
    if (!/^\d+$/.test(p)) throw new RangeError(`invalid OID ${dotted}`);
    return BigInt(p);
  });
  const [a, b, ...rest] = parts;
  if (a === undefined || b === undefined || a > 2n || (a < 2n && b > 39n)) throw new RangeError(`invalid OID ${dotted}`);
  const out: number[] = [];
  for (const arc of [a * 40n + b, ...rest]) {
    const groups: number[] = [];
    let v = arc;
    do {
      groups.unshift(Number(v & 0x7fn));
      v >>= 7n;
    } while (v > 0n);
    for (let i = 0; i < groups.length - 1; i++) groups[i]! |= 0x80;
    out.push(...groups);
  }
  return tlv(0x06, Buffer.from(out));
}

const two = (n: number) => String(n).padStart(2, '0');

/** UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 4.1.2.5). */
export function time(ms: number): Buffer {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const y = d.getUTCFullYear();
  const rest = `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return tlv(0x17, Buffer.from(two(y % 100) + rest, 'latin1'));
  return tlv(0x18, Buffer.from(String(y).padStart(4, '0') + rest, 'latin1'));
}
