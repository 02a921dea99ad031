/**
 * KMS signing algorithms on node:crypto keys. RAW messages go through node's own sign/verify;
 * DIGEST messages (already hashed by the caller) need the padding done here for RSA
 * (PKCS #1 v1.5 DigestInfo, EMSA-PSS with salt length = hash length, as KMS uses) and
 * BigInt ECDSA for EC keys.
 */
import {
  constants,
  createHash,
  privateEncrypt,
  publicDecrypt,
  randomBytes,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import { ecdsaSignDigest, ecdsaVerifyDigest } from './ecdsa';

export type Hash = 'sha256' | 'sha384' | 'sha512';

export interface SigningAlgorithm {
  hash: Hash;
  scheme: 'pkcs1' | 'pss' | 'ecdsa';
}

export const SIGNING_ALGORITHMS: Record<string, SigningAlgorithm> = {
  RSASSA_PSS_SHA_256: { hash: 'sha256', scheme: 'pss' },
  RSASSA_PSS_SHA_384: { hash: 'sha384', scheme: 'pss' },
  RSASSA_PSS_SHA_512: { hash: 'sha512', scheme: 'pss' },
  RSASSA_PKCS1_V1_5_SHA_256: { hash: 'sha256', scheme: 'pkcs1' },
  RSASSA_PKCS1_V1_5_SHA_384: { hash: 'sha384', scheme: 'pkcs1' },
  RSASSA_PKCS1_V1_5_SHA_512: { hash: 'sha512', scheme: 'pkcs1' },
  ECDSA_SHA_256: { hash: 'sha256', scheme: 'ecdsa' },
  ECDSA_SHA_384: { hash: 'sha384', scheme: 'ecdsa' },
  ECDSA_SHA_512: { hash: 'sha512', scheme: 'ecdsa' },
};

export const HASH_BYTES: Record<Hash, number> = { sha256: 32, sha384: 48, sha512: 64 };

// DER of DigestInfo up to the digest octets (RFC 8017 section 9.2, note 1).
const DIGEST_INFO: Record<Hash, Buffer> = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha384: Buffer.from('3041300d060960864801650304020205000430', 'hex'),
  sha512: Buffer.from('3051300d060960864801650304020305000440', 'hex'),
};

function mgf1(seed: Buffer, length: number, hash: Hash): Buffer {
  const out: Buffer[] = [];
  for (let counter = 0, got = 0; got < length; counter++) {
    const c = Buffer.alloc(4);
    c.writeUInt32BE(counter);
    const block = createHash(hash).update(seed).update(c).digest();
    out.push(block);
    got += block.length;
  }
  return Buffer.concat(out).subarray(0, length);
}

function modulusBits(key: KeyObject): number {
  const bits = key.asymmetricKeyDetails?.modulusLength;
  if (!bits) throw new Error('not an RSA key');
  return bits;
}

/** EMSA-PSS-ENCODE (RFC 8017 section 9.1.1), left-padded to the modulus length for raw RSA. */
function pssEncode(mHash: Buffer, hash: Hash, modBits: number): Buffer {
  const hLen = HASH_BYTES[hash];
  const emBits = modBits - 1;
  const emLen = Math.ceil(emBits / 8);
  const salt = randomBytes(hLen);
  const h = createHash(hash).update(Buffer.alloc(8)).update(mHash).update(salt).digest();
  const db = Buffer.concat([Buffer.alloc(emLen - 2 * hLen - 2), Buffer.from([1]), salt]);
  const mask = mgf1(h, db.length, hash);
  for (let i = 0; i < db.length; i++) db[i] = (db[i] ?? 0) ^ (mask[i] ?? 0);
  db[0] = (db[0] ?? 0) & (0xff >> (8 * emLen - emBits));
  const em = Buffer.concat([db, h, Buffer.from([0xbc])]);
  return Buffer.concat([Buffer.alloc(Math.ceil(modBits / 8) - emLen), em]);
}

/** EMSA-PSS-VERIFY (RFC 8017 section 9.1.2) with salt length = hash length. */
function pssVerify(mHash: Buffer, decrypted: Buffer, hash: Hash, modBits: number): boolean {
  const hLen = HASH_BYTES[hash];
  const emBits = modBits - 1;
  const emLen = Math.ceil(emBits / 8);
  const lead = decrypted.subarray(0, decrypted.length - emLen);
  if (lead.some((b) => b !== 0)) return false;
  const em = decrypted.subarray(decrypted.length - emLen);
  if (emLen < 2 * hLen + 2 || em[emLen - 1] !== 0xbc) return false;
  const topMask = 0xff >> (8 * emLen - emBits);
  if (((em[0] ?? 0) & ~topMask) !== 0) return false;
  const h = em.subarray(emLen - hLen - 1, emLen - 1);
  const db = Buffer.from(em.subarray(0, emLen - hLen - 1));
  const mask = mgf1(h, db.length, hash);
  for (let i = 0; i < db.length; i++) db[i] = (db[i] ?? 0) ^ (mask[i] ?? 0);
  db[0] = (db[0] ?? 0) & topMask;
  const psLen = emLen - 2 * hLen - 2;
  if (db.subarray(0, psLen).some((b) => b !== 0) || db[psLen] !== 1) return false;
  const salt = db.subarray(psLen + 1);
  const h2 = createHash(hash).update(Buffer.alloc(8)).update(mHash).update(salt).digest();
  return timingSafeEqual(h, h2);
}

function rsaRaw(decrypt: () => Buffer): Buffer | undefined {
  try {
    return decrypt();
  } catch {
    return undefined;
  }
}

export function signDigest(alg: SigningAlgorithm, digest: Buffer, key: KeyObject): Buffer {
  if (alg.scheme === 'ecdsa') return ecdsaSignDigest(digest, key);
  if (alg.scheme === 'pkcs1') {
    return privateEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.concat([DIGEST_INFO[alg.hash], digest]));
  }
  return privateEncrypt({ key, padding: constants.RSA_NO_PADDING }, pssEncode(digest, alg.hash, modulusBits(key)));
}

export function verifyDigest(alg: SigningAlgorithm, digest: Buffer, signature: Buffer, key: KeyObject): boolean {
  if (alg.scheme === 'ecdsa') return ecdsaVerifyDigest(digest, signature, key);
  const modBytes = Math.ceil(modulusBits(key) / 8);
  if (signature.length !== modBytes) return false;
  if (alg.scheme === 'pkcs1') {
    const got = rsaRaw(() => publicDecrypt({ key, padding: constants.RSA_PKCS1_PADDING }, signature));
    const want = Buffer.concat([DIGEST_INFO[alg.hash], digest]);
    return got !== undefined && got.length === want.length && timingSafeEqual(got, want);
  }
  const em = rsaRaw(() => publicDecrypt({ key, padding: constants.RSA_NO_PADDING }, signature));
  return em !== undefined && pssVerify(digest, em, alg.hash, modulusBits(key));
}

function rawOptions(alg: SigningAlgorithm, key: KeyObject) {
  if (alg.scheme === 'ecdsa') return { key, dsaEncoding: 'der' as const };
  if (alg.scheme === 'pkcs1') return { key, padding: constants.RSA_PKCS1_PADDING };
  return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: HASH_BYTES[alg.hash] };
}

export function signMessage(alg: SigningAlgorithm, message: Buffer, key: KeyObject): Buffer {
  return sign(alg.hash, message, rawOptions(alg, key));
}

export function verifyMessage(alg: SigningAlgorithm, message: Buffer, signature: Buffer, key: KeyObject): boolean {
  try {
    return verify(alg.hash, message, rawOptions(alg, key), signature);
  } catch {
    return false;
  }
}
