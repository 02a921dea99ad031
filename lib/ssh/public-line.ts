/**
 * An OpenSSH public key line (`type base64 [comment]`) read without sshpk: sshpk and its
 * dependencies were a fifth of the SSH function's cold start. The line is read as sshpk reads
 * it (its two patterns, the type named in the line of the key's family), the blob's fields are
 * checked for their shape (as sshpk does; nothing slower on the signing path: no point
 * validation) and the blob written anew in canonical form, as sshpk's `toBuffer` did.
 */
import { mpint, str, WireReader } from './wire';

export interface PublicKeyBlob {
  /** The OpenSSH type name: ssh-rsa, ecdsa-sha2-nistp256, ssh-ed25519... */
  type: string;
  /** The RSA modulus length, the EC curve size, 256 for Ed25519. */
  bits: number;
  /** The public key blob (RFC 4253 §6.6, RFC 5656 §3.1), canonical. */
  blob: Buffer;
}

/** sshpk's patterns: the plain line, and one with whitespace or line breaks inside the base64. */
const LINE = /^([a-z0-9-]+)[ \t]+([a-zA-Z0-9+/]+[=]*)([ \t]+([^ \t][^\n]*[\n]*)?)?$/;
const LOOSE_LINE = /^([a-z0-9-]+)[ \t\n]+([a-zA-Z0-9+/][a-zA-Z0-9+/ \t\n=]*)([^a-zA-Z0-9+/ \t\n=].*)?$/;

/** Curve id -> the size of a coordinate in bytes and the curve's bits. */
const CURVES: Record<string, { bytes: number; bits: number }> = {
  nistp256: { bytes: 32, bits: 256 },
  nistp384: { bytes: 48, bits: 384 },
  nistp521: { bytes: 66, bits: 521 },
};

/** Key types that parse but Latchkey does not sign for (their name is the refusal). */
const KNOWN_UNSIGNABLE = new Set(['ssh-dss']);

export class UnsupportedKeyType extends Error {
  constructor(readonly type: string) {
    super(`unsupported public key type ${type}`);
  }
}

/** The key family a type names (ecdsa-sha2-* one family, as sshpk has it). */
const family = (type: string) => (type.startsWith('ecdsa-sha2-') ? 'ecdsa' : type);

/** A positive integer's bytes without leading zeros. */
function magnitude(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length && b[i] === 0) i++;
  return b.subarray(i);
}

function bitLength(b: Buffer): number {
  return b.length === 0 ? 0 : (b.length - 1) * 8 + (32 - Math.clz32(b[0]!));
}

/** The key fields after the type; trailing bytes are ignored, as sshpk does. */
function readKey(type: string, r: WireReader): PublicKeyBlob {
  if (type === 'ssh-rsa') {
    const e = magnitude(r.string());
    const n = magnitude(r.string());
    if (e.length === 0 || n.length === 0) throw new Error('empty RSA integer');
    return { type, bits: bitLength(n), blob: Buffer.concat([str(type), mpint(e), mpint(n)]) };
  }
  if (type === 'ssh-ed25519') {
    const x = r.string();
    if (x.length !== 32) throw new Error('bad Ed25519 key length');
    return { type, bits: 256, blob: Buffer.concat([str(type), str(x)]) };
  }
  const id = type.slice('ecdsa-sha2-'.length);
  const curve = CURVES[id];
  if (!type.startsWith('ecdsa-sha2-') || !curve || r.string().toString('latin1') !== id) throw new Error(`unknown key type ${type}`);
  const q = r.string();
  if (q.length !== 1 + 2 * curve.bytes || q[0] !== 4) throw new Error('bad EC point');
  return { type, bits: curve.bits, blob: Buffer.concat([str(type), str(id), str(q)]) };
}

/**
 * The key of an OpenSSH public key line. Throws UnsupportedKeyType for a well-formed key of a
 * type Latchkey does not sign for (DSA), any other Error for what is not a public key line.
 */
export function readPublicLine(text: string): PublicKeyBlob {
  const trimmed = text.trim().replace(/[\\\r]/g, '');
  const strict = LINE.exec(trimmed);
  if (strict) {
    try {
      return readMatch(strict);
    } catch (e) {
      // As sshpk: whitespace inside the base64 makes the strict pattern take part of the key for
      // a comment; the loose pattern then reads the key through the whitespace.
      if (e instanceof UnsupportedKeyType) throw e;
    }
  }
  const loose = LOOSE_LINE.exec(trimmed);
  if (!loose) throw new Error('key must match the OpenSSH public key line');
  return readMatch(loose);
}

function readMatch(m: RegExpExecArray): PublicKeyBlob {
  const r = new WireReader(Buffer.from(m[2]!, 'base64'));
  const type = r.string().toString('latin1');
  if (family(type) !== family(m[1]!)) throw new Error('the key type in the line is not the blob type');
  if (KNOWN_UNSIGNABLE.has(type)) throw new UnsupportedKeyType(type);
  return readKey(type, r);
}
