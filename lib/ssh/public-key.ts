/** A public key submitted for signing: parsed and checked (public-line.ts), with its wire blob. */
import { createHash, type KeyObject } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { readPublicLine, UnsupportedKeyType } from './public-line';
import { publicBlob, sshKeyType } from './ssh-key';

export interface UserKey {
  /** The OpenSSH type name: ssh-rsa, ecdsa-sha2-nistp256, ssh-ed25519... */
  type: string;
  bits: number;
  blob: Buffer;
}

const SIGNABLE = new Set(['ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-ed25519']);
const MIN_RSA_BITS = 2048;

export function parseUserKey(text: string): UserKey {
  const line = text.trim();
  if (!line) throw new InvalidInput('missing public_key');
  if (line.length > 16384) throw new InvalidInput('public_key is too long');
  let key: KeyObject;
  try {
    key = readPublicLine(line);
  } catch (e) {
    if (e instanceof UnsupportedKeyType) throw new InvalidInput(e.message);
    throw new InvalidInput('public_key is not a valid SSH public key', { cause: e });
  }
  const type = sshKeyType(key);
  if (!SIGNABLE.has(type)) throw new InvalidInput(`unsupported public key type ${type}`);
  const bits = keyBits(key);
  if (type === 'ssh-rsa' && bits < MIN_RSA_BITS) throw new InvalidInput(`RSA public keys shorter than ${MIN_RSA_BITS} bits are refused`);
  // The blob written anew from the key, as sshpk did: canonical whatever the line's encoding.
  return { type, bits, blob: publicBlob(key) };
}

const CURVE_BITS: Record<string, number> = { prime256v1: 256, secp384r1: 384, secp521r1: 521 };

/** The key's size as OpenSSH states it: the RSA modulus, the EC curve, 256 for Ed25519. */
function keyBits(key: KeyObject): number {
  const d = key.asymmetricKeyDetails;
  if (key.asymmetricKeyType === 'rsa') return d?.modulusLength ?? 0;
  if (key.asymmetricKeyType === 'ec') return CURVE_BITS[d?.namedCurve ?? ''] ?? 0;
  return 256;
}

/** SHA-256 of the key blob, hex: the `{{public_key_hash}}` of key_id_format and the default key id. */
export function keyHash(key: UserKey): string {
  return createHash('sha256').update(key.blob).digest('hex');
}
