/**
 * Encodings of a fresh key without OpenSSL's encoder (which costs a good part of a P-256
 * signature per call): EC and Ed25519 keys are laid out from their JWK coordinates, exported
 * once per key.
 */
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { bits, explicit, int, octets, oid, seq } from './der/asn1';

const CURVE_OIDS: Record<string, string> = { 'P-256': '1.2.840.10045.3.1.7', 'P-384': '1.3.132.0.34', 'P-521': '1.3.132.0.35' };
const FIELD_BYTES: Record<string, number> = { 'P-256': 32, 'P-384': 48, 'P-521': 66 };
const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const jwks = new WeakMap<KeyObject, JsonWebKey>();

function jwkOf(key: KeyObject): JsonWebKey {
  let j = jwks.get(key);
  if (!j) jwks.set(key, (j = key.export({ format: 'jwk' })));
  return j;
}

const b64 = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');

function ecPoint(j: JsonWebKey): Buffer {
  return Buffer.concat([Buffer.from([4]), b64(j.x), b64(j.y)]);
}

const isLaidOut = (key: KeyObject) => {
  if (key.asymmetricKeyType === 'ed25519') return true;
  return key.asymmetricKeyType === 'ec' && CURVE_OIDS[jwkOf(key).crv ?? ''] !== undefined;
};

export function spkiOf(key: KeyObject): Buffer {
  if (!isLaidOut(key)) return createPublicKey(key).export({ format: 'der', type: 'spki' });
  const j = jwkOf(key);
  if (key.asymmetricKeyType === 'ed25519') return seq(seq(oid('1.3.101.112')), bits(b64(j.x)));
  return seq(seq(oid(EC_PUBLIC_KEY), oid(CURVE_OIDS[j.crv!]!)), bits(ecPoint(j)));
}

/** SEC1 ECPrivateKey (RFC 5915); `withParams` false is the form nested in PKCS#8. */
function sec1(j: JsonWebKey, withParams: boolean): Buffer {
  const size = FIELD_BYTES[j.crv!]!;
  const d = b64(j.d);
  const padded = d.length >= size ? d : Buffer.concat([Buffer.alloc(size - d.length), d]);
  return seq(int(1), octets(padded), withParams ? explicit(0, oid(CURVE_OIDS[j.crv!]!)) : undefined, explicit(1, bits(ecPoint(j))));
}

/** The private key as `der` (SEC1 for EC, PKCS#1 for RSA, PKCS#8 for Ed25519) or `pkcs8`. */
export function privateKeyDer(key: KeyObject, pkcs8: boolean): { der: Buffer; label: string } {
  const type = key.asymmetricKeyType;
  if (type === 'ec' && isLaidOut(key)) {
    const j = jwkOf(key);
    if (!pkcs8) return { der: sec1(j, true), label: 'EC PRIVATE KEY' };
    return { der: seq(int(0), seq(oid(EC_PUBLIC_KEY), oid(CURVE_OIDS[j.crv!]!)), octets(sec1(j, false))), label: 'PRIVATE KEY' };
  }
  if (pkcs8 || type !== 'rsa') return { der: key.export({ format: 'der', type: 'pkcs8' }), label: 'PRIVATE KEY' };
  return { der: key.export({ format: 'der', type: 'pkcs1' }), label: 'RSA PRIVATE KEY' };
}
