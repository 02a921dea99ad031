/** A public key submitted for signing: parsed and checked (public-line.ts), with its wire blob. */
import { createHash } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { readPublicLine, UnsupportedKeyType, type PublicKeyBlob } from './public-line';

/** The OpenSSH type name (ssh-rsa, ecdsa-sha2-nistp256, ssh-ed25519...), its size and its canonical blob. */
export type UserKey = PublicKeyBlob;

const SIGNABLE = new Set(['ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-ed25519']);
const MIN_RSA_BITS = 2048;

export function parseUserKey(text: string): UserKey {
  const line = text.trim();
  if (!line) throw new InvalidInput('missing public_key');
  if (line.length > 16384) throw new InvalidInput('public_key is too long');
  let key: UserKey;
  try {
    key = readPublicLine(line);
  } catch (e) {
    if (e instanceof UnsupportedKeyType) throw new InvalidInput(e.message);
    throw new InvalidInput('public_key is not a valid SSH public key', { cause: e });
  }
  if (!SIGNABLE.has(key.type)) throw new InvalidInput(`unsupported public key type ${key.type}`);
  if (key.type === 'ssh-rsa' && key.bits < MIN_RSA_BITS)
    throw new InvalidInput(`RSA public keys shorter than ${MIN_RSA_BITS} bits are refused`);
  return key;
}

/** SHA-256 of the key blob, hex: the `{{public_key_hash}}` of key_id_format and the default key id. */
export function keyHash(key: UserKey): string {
  return createHash('sha256').update(key.blob).digest('hex');
}
