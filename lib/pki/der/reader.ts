/** Just enough DER reading to take signed structures apart without re-encoding them. */
import { InvalidInput } from '../../domain-errors';

export interface Tlv {
  tag: number;
  /** The whole element: header and value. */
  raw: Buffer;
  value: Buffer;
}

export function readTlv(der: Buffer, off = 0): Tlv {
  const tag = der[off];
  const first = der[off + 1];
  if (tag === undefined || first === undefined) throw new InvalidInput('malformed DER: truncated');
  let length = first;
  let header = 2;
  if (first >= 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 4) throw new InvalidInput('malformed DER: unsupported length');
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + (der[off + 2 + i] ?? 0);
    header += n;
  }
  const end = off + header + length;
  if (end > der.length) throw new InvalidInput('malformed DER: truncated');
  return { tag, raw: der.subarray(off, end), value: der.subarray(off + header, end) };
}

/** `t` when it is present with `tag`; otherwise an InvalidInput naming `what`. */
export function expectTlv(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (!t || t.tag !== tag) throw new InvalidInput(`malformed ${what}`);
  return t;
}

/** The elements of a constructed value, in order. */
export function children(value: Buffer): Tlv[] {
  const out: Tlv[] = [];
  for (let off = 0; off < value.length;) {
    const t = readTlv(value, off);
    out.push(t);
    off += t.raw.length;
  }
  return out;
}

/** The three parts of a signed structure (certificate, CSR, CRL): tbs, algorithm, signature bits. */
export function signedParts(der: Buffer): { tbs: Buffer; algorithm: Buffer; signature: Buffer } {
  const outer = readTlv(der);
  if (outer.tag !== 0x30 || outer.raw.length !== der.length) throw new InvalidInput('malformed DER: not a single SEQUENCE');
  const [tbs, algorithm, sig] = children(outer.value);
  if (!tbs || !algorithm || !sig || sig.tag !== 0x03) throw new InvalidInput('malformed DER: not a signed structure');
  return { tbs: tbs.raw, algorithm: algorithm.raw, signature: sig.value.subarray(1) };
}
