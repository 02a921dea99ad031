/**
 * Keys handed out with a certificate (issue, exported CA keys): the SubjectPublicKeyInfo that
 * goes into the certificate and the private encodings that go into the response.
 *
 * OpenSSL's encoders cost more than a P-256 signature each, so encodings are laid out here:
 * a fresh EC key comes from ECDH key generation as its raw scalar and point (no KeyObject, no
 * encoder at all; cheaper than generateKeyPairSync), an existing EC key from one SEC1 export,
 * Ed25519 from its JWK. The tests compare every layout byte for byte with OpenSSL's.
 */
import { createECDH, createPublicKey, type ECDH, type KeyObject } from 'node:crypto';
import { curveOfBits } from '../keys/curves';
import { generateKey } from '../keys/signer-local';
import type { KeyType } from '../keys/signer';
import { bits, explicit, int, octets, oid, seq } from './der/asn1';
import { children, readTlv } from './der/reader';

export interface EncodedKey {
  der: Buffer;
  label: string;
}

export interface IssuedKey {
  readonly type: 'rsa' | 'ec' | 'ed25519';
  readonly spki: Buffer;
  /** `der` (SEC1 for EC, PKCS#1 for RSA, PKCS#8 for Ed25519) or PKCS#8. */
  privateDer(pkcs8: boolean): EncodedKey;
}

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';

/** An EC key as encoded TLVs: the private scalar OCTET STRING, the curve OID, the point BIT STRING. */
interface EcTlvs {
  d: Buffer;
  curve: Buffer;
  point: Buffer;
  /** OpenSSL's own SEC1 encoding when the key came from one. */
  sec1?: Buffer;
}

const ecAlgorithm = (curve: Buffer) => seq(oid(EC_PUBLIC_KEY), curve);

function ecKey(k: EcTlvs): IssuedKey {
  return {
    type: 'ec',
    spki: seq(ecAlgorithm(k.curve), k.point),
    privateDer(pkcs8) {
      // PKCS#8 carries the curve in its algorithm; the nested SEC1 keeps only d and the point.
      if (pkcs8) return { der: seq(int(0), ecAlgorithm(k.curve), octets(seq(int(1), k.d, explicit(1, k.point)))), label: 'PRIVATE KEY' };
      return { der: k.sec1 ?? seq(int(1), k.d, explicit(0, k.curve), explicit(1, k.point)), label: 'EC PRIVATE KEY' };
    },
  };
}

const generators = new Map<number, ECDH>();

/** A new EC key pair by ECDH key generation, for a curve of `keyBits` (224, 256, 384, 521). */
export function newEcKey(keyBits: number): IssuedKey {
  const curve = curveOfBits(keyBits);
  if (!curve) throw new RangeError(`unsupported EC key size ${keyBits}`);
  // One ECDH context per curve: generateKeys() draws a fresh key pair into it on each call.
  let ecdh = generators.get(keyBits);
  if (!ecdh) generators.set(keyBits, (ecdh = createECDH(curve.name)));
  const point = ecdh.generateKeys();
  return ecdhKey(keyBits, ecdh, point);
}

/** The encodings of an ECDH key pair on the curve of `keyBits` (`point`: its public key, uncompressed). */
export function ecdhKey(keyBits: number, ecdh: ECDH, point = ecdh.getPublicKey()): IssuedKey {
  const curve = curveOfBits(keyBits);
  if (!curve) throw new RangeError(`unsupported EC key size ${keyBits}`);
  // getPrivateKey drops leading zero bytes; SEC1 wants the scalar at the order's full length.
  const raw = ecdh.getPrivateKey();
  const d = raw.length === curve.size ? raw : Buffer.concat([Buffer.alloc(curve.size - raw.length), raw]);
  return ecKey({ d: octets(d), curve: oid(curve.oid), point: bits(point) });
}

/** The SEC1 export taken apart, or undefined when it lacks the named curve or the public point. */
function ecTlvsOf(key: KeyObject): EcTlvs | undefined {
  const sec1 = key.export({ format: 'der', type: 'sec1' });
  const [, d, params, pub] = children(readTlv(sec1).value);
  if (!d || params?.tag !== 0xa0 || pub?.tag !== 0xa1) return undefined;
  return { sec1, d: d.raw, curve: readTlv(params.value).raw, point: readTlv(pub.value).raw };
}

/** The encodings of an existing private key. */
export function issuedKeyOf(key: KeyObject): IssuedKey {
  const type = key.asymmetricKeyType;
  if (type === 'ec') {
    const ec = ecTlvsOf(key);
    if (ec) return ecKey(ec);
  }
  let spki: Buffer | undefined;
  if (type === 'ed25519') {
    const x = key.export({ format: 'jwk' }).x;
    if (x) spki = seq(seq(oid('1.3.101.112')), bits(Buffer.from(x, 'base64url')));
  }
  return {
    type: type === 'rsa' || type === 'ec' ? type : 'ed25519',
    spki: spki ?? createPublicKey(key).export({ format: 'der', type: 'spki' }),
    privateDer(pkcs8) {
      if (pkcs8 || type !== 'rsa') return { der: key.export({ format: 'der', type: 'pkcs8' }), label: 'PRIVATE KEY' };
      return { der: key.export({ format: 'der', type: 'pkcs1' }), label: 'RSA PRIVATE KEY' };
    },
  };
}

/** A key pair to hand out with a leaf certificate (RSA off the event loop, as generateKey does). */
export async function newIssuedKey(keyType: KeyType, keyBits: number): Promise<IssuedKey> {
  if (keyType === 'ec') return newEcKey(keyBits);
  return issuedKeyOf(await generateKey(keyType, keyBits));
}
