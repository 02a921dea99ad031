/**
 * Encodings of a fresh key with as few OpenSSL encoder calls as possible (each costs a good
 * part of a P-256 signature): an EC key is exported once as SEC1, and its SubjectPublicKeyInfo
 * and PKCS#8 forms are laid out from those bytes; Ed25519 comes from its JWK.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { bits, explicit, int, octets, oid, seq } from './der/asn1';
import { children, readTlv } from './der/reader';

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';

interface EcParts {
  sec1: Buffer;
  /** Raw TLVs inside the SEC1 structure. */
  d: Buffer;
  curve: Buffer;
  point: Buffer;
}

const ecCache = new WeakMap<KeyObject, EcParts | null>();

/** The SEC1 export taken apart, or null when it lacks the named curve or the public point. */
function ecParts(key: KeyObject): EcParts | null {
  let hit = ecCache.get(key);
  if (hit !== undefined) return hit;
  const sec1 = key.export({ format: 'der', type: 'sec1' });
  const [, d, params, pub] = children(readTlv(sec1).value);
  hit = d && params?.tag === 0xa0 && pub?.tag === 0xa1 ? { sec1, d: d.raw, curve: readTlv(params.value).raw, point: readTlv(pub.value).raw } : null;
  ecCache.set(key, hit);
  return hit;
}

const ecAlgorithm = (curve: Buffer) => seq(oid(EC_PUBLIC_KEY), curve);

export function spkiOf(key: KeyObject): Buffer {
  if (key.asymmetricKeyType === 'ed25519') {
    const x = key.export({ format: 'jwk' }).x;
    if (x) return seq(seq(oid('1.3.101.112')), bits(Buffer.from(x, 'base64url')));
  }
  const ec = key.asymmetricKeyType === 'ec' ? ecParts(key) : null;
  if (ec) return seq(ecAlgorithm(ec.curve), ec.point);
  return createPublicKey(key).export({ format: 'der', type: 'spki' });
}

/** The private key as `der` (SEC1 for EC, PKCS#1 for RSA, PKCS#8 for Ed25519) or `pkcs8`. */
export function privateKeyDer(key: KeyObject, pkcs8: boolean): { der: Buffer; label: string } {
  const type = key.asymmetricKeyType;
  const ec = type === 'ec' ? ecParts(key) : null;
  if (ec) {
    if (!pkcs8) return { der: ec.sec1, label: 'EC PRIVATE KEY' };
    // PKCS#8 carries the curve in its algorithm; the nested SEC1 keeps only d and the point.
    return { der: seq(int(0), ecAlgorithm(ec.curve), octets(seq(int(1), ec.d, explicit(1, ec.point)))), label: 'PRIVATE KEY' };
  }
  if (pkcs8 || type !== 'rsa') return { der: key.export({ format: 'der', type: 'pkcs8' }), label: 'PRIVATE KEY' };
  return { der: key.export({ format: 'der', type: 'pkcs1' }), label: 'RSA PRIVATE KEY' };
}
