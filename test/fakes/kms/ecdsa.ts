/**
 * ECDSA over a precomputed digest (KMS MessageType DIGEST). node:crypto always hashes the input
 * itself, so this does the curve arithmetic with BigInt (Jacobian coordinates, a = -3 curves).
 * Signatures are DER SEQUENCE { r INTEGER, s INTEGER }, as KMS returns them.
 */
import { createECDH, randomBytes, type KeyObject } from 'node:crypto';

type Jacobian = [bigint, bigint, bigint];

interface Curve {
  p: bigint;
  n: bigint;
  bytes: number;
  g: Jacobian;
}

const PARAMS: Record<string, { p: bigint; n: bigint; bytes: number }> = {
  prime256v1: {
    p: 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n,
    n: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
    bytes: 32,
  },
  secp384r1: {
    p: 2n ** 384n - 2n ** 128n - 2n ** 96n + 2n ** 32n - 1n,
    n: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
    bytes: 48,
  },
  secp521r1: {
    p: 2n ** 521n - 1n,
    n: 0x1fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffa51868783bf2f966b7fcc0148f709a5d03bb5c9b8899c47aebb6fb71e91386409n,
    bytes: 66,
  },
};

const curves = new Map<string, Curve>();

const toBig = (b: Buffer): bigint => (b.length === 0 ? 0n : BigInt('0x' + b.toString('hex')));
const toBytes = (v: bigint, len: number): Buffer => Buffer.from(v.toString(16).padStart(len * 2, '0'), 'hex');
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;

function inv(a: bigint, m: bigint): bigint {
  let [r0, r1, t0, t1] = [mod(a, m), m, 1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, t0, t1] = [r1, r0 - q * r1, t1, t0 - q * t1];
  }
  if (r0 !== 1n) throw new Error('not invertible');
  return mod(t0, m);
}

function curve(name: string): Curve {
  const cached = curves.get(name);
  if (cached) return cached;
  const params = PARAMS[name];
  if (!params) throw new Error(`unsupported curve ${name}`);
  // The generator is the public key of the private scalar 1.
  const pub = createECDH(name);
  pub.setPrivateKey(toBytes(1n, params.bytes));
  const g = pub.getPublicKey();
  const c: Curve = { ...params, g: [toBig(g.subarray(1, 1 + params.bytes)), toBig(g.subarray(1 + params.bytes)), 1n] };
  curves.set(name, c);
  return c;
}

function double([x, y, z]: Jacobian, p: bigint): Jacobian {
  if (z === 0n || y === 0n) return [0n, 1n, 0n];
  const delta = mod(z * z, p);
  const gamma = mod(y * y, p);
  const beta = mod(x * gamma, p);
  const alpha = mod(3n * (x - delta) * (x + delta), p);
  const x3 = mod(alpha * alpha - 8n * beta, p);
  const z3 = mod((y + z) * (y + z) - gamma - delta, p);
  const y3 = mod(alpha * (4n * beta - x3) - 8n * gamma * gamma, p);
  return [x3, y3, z3];
}

function add(a: Jacobian, b: Jacobian, p: bigint): Jacobian {
  if (a[2] === 0n) return b;
  if (b[2] === 0n) return a;
  const [x1, y1, z1] = a;
  const [x2, y2, z2] = b;
  const z1z1 = mod(z1 * z1, p);
  const z2z2 = mod(z2 * z2, p);
  const u1 = mod(x1 * z2z2, p);
  const u2 = mod(x2 * z1z1, p);
  const s1 = mod(y1 * z2 * z2z2, p);
  const s2 = mod(y2 * z1 * z1z1, p);
  if (u1 === u2) return s1 === s2 ? double(a, p) : [0n, 1n, 0n];
  const h = mod(u2 - u1, p);
  const r = mod(s2 - s1, p);
  const hh = mod(h * h, p);
  const hhh = mod(h * hh, p);
  const x3 = mod(r * r - hhh - 2n * u1 * hh, p);
  const y3 = mod(r * (u1 * hh - x3) - s1 * hhh, p);
  return [x3, y3, mod(h * z1 * z2, p)];
}

function multiply(k: bigint, pt: Jacobian, p: bigint): Jacobian {
  let acc: Jacobian = [0n, 1n, 0n];
  for (let i = k.toString(2).length - 1; i >= 0; i--) {
    acc = double(acc, p);
    if ((k >> BigInt(i)) & 1n) acc = add(acc, pt, p);
  }
  return acc;
}

function affineX([x, , z]: Jacobian, p: bigint): bigint {
  const zi = inv(z, p);
  return mod(x * zi * zi, p);
}

/** The leftmost bits of the digest, as many as the order has (SEC 1 section 4.1.3). */
function digestToInt(digest: Buffer, n: bigint): bigint {
  const excess = digest.length * 8 - n.toString(2).length;
  const z = toBig(digest);
  return excess > 0 ? z >> BigInt(excess) : z;
}

function curveOf(key: KeyObject): Curve {
  return curve(key.asymmetricKeyDetails?.namedCurve ?? '');
}

function derInteger(v: bigint): Buffer {
  const hex = v.toString(16);
  let b = Buffer.from(hex.length % 2 ? '0' + hex : hex, 'hex');
  if ((b[0] ?? 0) & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return Buffer.concat([Buffer.from([0x02, b.length]), b]);
}

function derLength(len: number): Buffer {
  return len < 0x80 ? Buffer.from([len]) : Buffer.from([0x81, len]);
}

export function ecdsaSignDigest(digest: Buffer, privateKey: KeyObject): Buffer {
  const c = curveOf(privateKey);
  const jwk = privateKey.export({ format: 'jwk' });
  const d = toBig(Buffer.from(jwk.d ?? '', 'base64url'));
  const z = digestToInt(digest, c.n);
  for (;;) {
    const k = mod(toBig(randomBytes(c.bytes + 16)), c.n - 1n) + 1n;
    const r = mod(affineX(multiply(k, c.g, c.p), c.p), c.n);
    const s = mod(inv(k, c.n) * (z + r * d), c.n);
    if (r === 0n || s === 0n) continue;
    const body = Buffer.concat([derInteger(r), derInteger(s)]);
    return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
  }
}

/** Parses a DER ECDSA signature strictly; undefined when it is not one. */
function parseDer(sig: Buffer): [bigint, bigint] | undefined {
  let i = 0;
  const len = (): number | undefined => {
    const first = sig[i++];
    if (first === undefined) return undefined;
    if (first < 0x80) return first;
    if (first !== 0x81) return undefined;
    return sig[i++];
  };
  if (sig[i++] !== 0x30 || len() !== sig.length - i) return undefined;
  const ints: bigint[] = [];
  for (let k = 0; k < 2; k++) {
    if (sig[i++] !== 0x02) return undefined;
    const l = len();
    if (l === undefined || l === 0 || i + l > sig.length) return undefined;
    ints.push(toBig(sig.subarray(i, i + l)));
    i += l;
  }
  return i === sig.length && ints[0] !== undefined && ints[1] !== undefined ? [ints[0], ints[1]] : undefined;
}

export function ecdsaVerifyDigest(digest: Buffer, signature: Buffer, publicKey: KeyObject): boolean {
  const c = curveOf(publicKey);
  const rs = parseDer(signature);
  if (!rs) return false;
  const [r, s] = rs;
  if (r <= 0n || r >= c.n || s <= 0n || s >= c.n) return false;
  const jwk = publicKey.export({ format: 'jwk' });
  const q: Jacobian = [toBig(Buffer.from(jwk.x ?? '', 'base64url')), toBig(Buffer.from(jwk.y ?? '', 'base64url')), 1n];
  const w = inv(s, c.n);
  const u1 = mod(digestToInt(digest, c.n) * w, c.n);
  const u2 = mod(r * w, c.n);
  const pt = add(multiply(u1, c.g, c.p), multiply(u2, q, c.p), c.p);
  if (pt[2] === 0n) return false;
  return mod(affineX(pt, c.p), c.n) === r;
}
