/**
 * An OpenSSH public key line (`type base64 [comment]`) read into a node:crypto key, without
 * sshpk: sshpk and its dependencies were a fifth of the SSH function's cold start. The line is
 * read as sshpk reads it (its two patterns, the type named in the line of the key's family), and
 * node:crypto checks the key itself (an EC point on its curve, an RSA modulus).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { WireReader } from './wire';

/** sshpk's patterns: the plain line, and one with whitespace or line breaks inside the base64. */
const LINE = /^([a-z0-9-]+)[ \t]+([a-zA-Z0-9+/]+[=]*)([ \t]+([^ \t][^\n]*[\n]*)?)?$/;
const LOOSE_LINE = /^([a-z0-9-]+)[ \t\n]+([a-zA-Z0-9+/][a-zA-Z0-9+/ \t\n=]*)([^a-zA-Z0-9+/ \t\n=].*)?$/;

const CURVES: Record<string, string> = { nistp256: 'P-256', nistp384: 'P-384', nistp521: 'P-521' };

/** Key types that parse but Latchkey does not sign for (their name is the refusal). */
const KNOWN_UNSIGNABLE = new Set(['ssh-dss']);

export class UnsupportedKeyType extends Error {
  constructor(readonly type: string) {
    super(`unsupported public key type ${type}`);
  }
}

/** The key family the line's own type names (ecdsa-sha2-* one family, as sshpk has it). */
const family = (type: string) => (type.startsWith('ecdsa-sha2-') ? 'ecdsa' : type);

const b64u = (b: Buffer) => b.toString('base64url');
const unsigned = (b: Buffer) => {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  return b.subarray(i);
};

/** The key a wire blob holds (RFC 4253 §6.6, RFC 5656 §3.1); trailing bytes are ignored, as sshpk does. */
function keyOfBlob(type: string, r: WireReader): KeyObject {
  if (type === 'ssh-rsa') {
    const e = unsigned(r.string());
    const n = unsigned(r.string());
    return createPublicKey({ key: { kty: 'RSA', e: b64u(e), n: b64u(n) }, format: 'jwk' });
  }
  if (type === 'ssh-ed25519') {
    const x = r.string();
    if (x.length !== 32) throw new Error('bad Ed25519 key length');
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: b64u(x) }, format: 'jwk' });
  }
  const id = type.slice('ecdsa-sha2-'.length);
  const crv = CURVES[id];
  if (!crv || r.string().toString('latin1') !== id) throw new Error(`unknown key type ${type}`);
  const q = r.string();
  const size = (q.length - 1) / 2;
  if (q[0] !== 4 || !Number.isInteger(size)) throw new Error('bad EC point');
  return createPublicKey({ key: { kty: 'EC', crv, x: b64u(q.subarray(1, 1 + size)), y: b64u(q.subarray(1 + size)) }, format: 'jwk' });
}

/**
 * The key of an OpenSSH public key line. Throws UnsupportedKeyType for a well-formed key of a
 * type Latchkey does not sign for (DSA), any other Error for what is not a public key line.
 */
export function readPublicLine(text: string): KeyObject {
  const trimmed = text.trim().replace(/[\\\r]/g, '');
  const m = LINE.exec(trimmed) ?? LOOSE_LINE.exec(trimmed);
  if (!m) throw new Error('key must match the OpenSSH public key line');
  const r = new WireReader(Buffer.from(m[2]!, 'base64'));
  const type = r.string().toString('latin1');
  if (family(type) !== family(m[1]!)) throw new Error('the key type in the line is not the blob type');
  if (KNOWN_UNSIGNABLE.has(type)) throw new UnsupportedKeyType(type);
  return keyOfBlob(type, r);
}
