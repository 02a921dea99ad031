/**
 * The CA-key signer: what certificate and CRL code sees of a CA's private key. A local key
 * (sealed in the table) and a KMS key (every signature a KMS Sign call) look the same here.
 */
import { hash } from 'node:crypto';

export type KeyType = 'rsa' | 'ec' | 'ed25519';
export type HashName = 'sha256' | 'sha384' | 'sha512';

export interface SignatureAlgorithm {
  /** The DER AlgorithmIdentifier. */
  der: Buffer;
  /** The digest signed, or null for Ed25519 (which signs the message). */
  hash: HashName | null;
}

export interface Signer {
  readonly keyType: KeyType;
  /** RSA modulus bits, EC curve bits, 256 for Ed25519. */
  readonly keyBits: number;
  /** The SubjectPublicKeyInfo, DER. */
  readonly spki: Buffer;
  /** Where the key lives: a local key is "local", a managed key "kms". */
  readonly kind: 'local' | 'kms';
  /** Signs `data` with the algorithm from `signatureAlgorithm`. */
  sign(data: Buffer, alg: SignatureAlgorithm): Promise<Buffer>;
}

const hex = (s: string) => Buffer.from(s, 'hex');
// AlgorithmIdentifier encodings (RSA ones carry an explicit NULL parameter, RFC 4055).
const ALGS: Record<string, SignatureAlgorithm> = {
  'rsa-sha256': { der: hex('300d06092a864886f70d01010b0500'), hash: 'sha256' },
  'rsa-sha384': { der: hex('300d06092a864886f70d01010c0500'), hash: 'sha384' },
  'rsa-sha512': { der: hex('300d06092a864886f70d01010d0500'), hash: 'sha512' },
  'ec-sha256': { der: hex('300a06082a8648ce3d040302'), hash: 'sha256' },
  'ec-sha384': { der: hex('300a06082a8648ce3d040303'), hash: 'sha384' },
  'ec-sha512': { der: hex('300a06082a8648ce3d040304'), hash: 'sha512' },
  ed25519: { der: hex('300506032b6570'), hash: null },
};

/**
 * The signature algorithm of an issuer: RSA follows `signatureBits` (0 means 256); EC uses the
 * hash that matches its curve; Ed25519 has exactly one.
 */
export function signatureAlgorithm(signer: Pick<Signer, 'keyType' | 'keyBits'>, signatureBits = 0): SignatureAlgorithm {
  if (signer.keyType === 'ed25519') return ALGS.ed25519!;
  if (signer.keyType === 'rsa') return ALGS[`rsa-sha${signatureBits || 256}`] ?? ALGS['rsa-sha256']!;
  const bits = signer.keyBits <= 256 ? 256 : signer.keyBits <= 384 ? 384 : 512;
  return ALGS[`ec-sha${bits}`]!;
}

/** The key identifier of RFC 5280 4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
export function keyIdentifier(spki: Buffer): Buffer {
  // SPKI = SEQUENCE { AlgorithmIdentifier, BIT STRING }; hash the BIT STRING contents after the unused-bits byte.
  const bitString = lastElement(spki);
  return hash('sha1', bitString.subarray(1), 'buffer');
}

/** The value of the last element of a DER SEQUENCE. */
function lastElement(der: Buffer): Buffer {
  let off = headerLength(der, 0);
  let value: Buffer = Buffer.alloc(0);
  while (off < der.length) {
    const h = headerLength(der, off);
    const l = contentLength(der, off);
    value = der.subarray(off + h, off + h + l);
    off += h + l;
  }
  return value;
}

function headerLength(der: Buffer, off: number): number {
  const b = der[off + 1] ?? 0;
  return b < 0x80 ? 2 : 2 + (b & 0x7f);
}

function contentLength(der: Buffer, off: number): number {
  const b = der[off + 1] ?? 0;
  if (b < 0x80) return b;
  let n = 0;
  for (let i = 0; i < (b & 0x7f); i++) n = n * 256 + (der[off + 2 + i] ?? 0);
  return n;
}
