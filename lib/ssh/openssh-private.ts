/**
 * An Ed25519 private key in OpenSSH's own format (PROTOCOL.key, unencrypted), as `ssh-keygen`
 * writes it and as issue/<role> answers an Ed25519 key pair; written here rather than by sshpk,
 * which the SSH function no longer loads (public-line.ts says why).
 */
import { randomBytes, type KeyObject } from 'node:crypto';
import { publicBlob } from './ssh-key';
import { str, u32 } from './wire';

const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');

export function openSshEd25519PrivateKey(key: KeyObject, comment = ''): string {
  if (key.asymmetricKeyType !== 'ed25519' || key.type !== 'private') throw new Error('an Ed25519 private key is needed');
  const jwk = key.export({ format: 'jwk' });
  const seed = Buffer.from(jwk.d ?? '', 'base64url');
  const pub = Buffer.from(jwk.x ?? '', 'base64url');
  // Two equal check integers, the key (type, public, seed || public), the comment, then 1, 2, 3... to a multiple of 8.
  const check = randomBytes(4);
  const parts = [check, check, str('ssh-ed25519'), str(pub), str(Buffer.concat([seed, pub])), str(comment)];
  const length = parts.reduce((n, p) => n + p.length, 0);
  const padding = Buffer.from(Array.from({ length: (8 - (length % 8)) % 8 }, (_, i) => i + 1));
  const secret = Buffer.concat([...parts, padding]);
  const body = Buffer.concat([MAGIC, str('none'), str('none'), str(''), u32(1), str(publicBlob(key)), str(secret)]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}
