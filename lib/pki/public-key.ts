/**
 * SubjectPublicKeyInfo of a fresh key without OpenSSL's encoder (which costs several times a
 * P-256 signature): EC and Ed25519 keys are laid out from their JWK coordinates.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { bits, oid, seq } from './der/asn1';

const CURVE_OIDS: Record<string, string> = { 'P-256': '1.2.840.10045.3.1.7', 'P-384': '1.3.132.0.34', 'P-521': '1.3.132.0.35' };
const prefixes = new Map<string, Buffer>();

function ecAlgorithm(crv: string): Buffer | undefined {
  let hit = prefixes.get(crv);
  const curve = CURVE_OIDS[crv];
  if (!hit && curve) prefixes.set(crv, (hit = seq(oid('1.2.840.10045.2.1'), oid(curve))));
  return hit;
}

export function spkiOf(key: KeyObject): Buffer {
  const type = key.asymmetricKeyType;
  if (type === 'ec' || type === 'ed25519') {
    const jwk = key.export({ format: 'jwk' });
    if (type === 'ed25519' && jwk.x) return seq(seq(oid('1.3.101.112')), bits(Buffer.from(jwk.x, 'base64url')));
    const alg = jwk.crv ? ecAlgorithm(jwk.crv) : undefined;
    if (alg && jwk.x && jwk.y) return seq(alg, bits(Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, 'base64url'), Buffer.from(jwk.y, 'base64url')])));
  }
  return createPublicKey(key).export({ format: 'der', type: 'spki' });
}
