/** A public key submitted for signing: parsed and checked (sshpk), with its wire blob. */
import { createHash } from 'node:crypto';
import sshpk from 'sshpk';
import { InvalidInput } from '../domain-errors';
import { WireReader } from './wire';

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
  let key: sshpk.Key;
  try {
    key = sshpk.parseKey(line, 'ssh');
  } catch (e) {
    throw new InvalidInput('public_key is not a valid SSH public key', { cause: e });
  }
  const blob = key.toBuffer('rfc4253');
  const type = new WireReader(blob).string().toString('latin1');
  if (!SIGNABLE.has(type)) throw new InvalidInput(`unsupported public key type ${type}`);
  if (type === 'ssh-rsa' && key.size < MIN_RSA_BITS)
    throw new InvalidInput(`RSA public keys shorter than ${MIN_RSA_BITS} bits are refused`);
  return { type, bits: key.size, blob };
}

/** SHA-256 of the key blob, hex: the `{{public_key_hash}}` of key_id_format and the default key id. */
export function keyHash(key: UserKey): string {
  return createHash('sha256').update(key.blob).digest('hex');
}
