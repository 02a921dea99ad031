/**
 * Key objects as SSH sees them: the public key blob and line of a node:crypto key, and the
 * signature blob of the algorithms OpenSSH accepts. Signing is node:crypto (native), never sshpk.
 */
import { createPublicKey, sign, type KeyObject } from 'node:crypto';
import { mpint, str } from './wire';

export type SshKeyType = 'ssh-rsa' | 'ecdsa-sha2-nistp256' | 'ecdsa-sha2-nistp384' | 'ecdsa-sha2-nistp521' | 'ssh-ed25519';
export type RsaSigner = 'ssh-rsa' | 'rsa-sha2-256' | 'rsa-sha2-512';

const CURVES: Record<string, { name: SshKeyType; id: string; hash: string; size: number }> = {
  'P-256': { name: 'ecdsa-sha2-nistp256', id: 'nistp256', hash: 'sha256', size: 32 },
  'P-384': { name: 'ecdsa-sha2-nistp384', id: 'nistp384', hash: 'sha384', size: 48 },
  'P-521': { name: 'ecdsa-sha2-nistp521', id: 'nistp521', hash: 'sha512', size: 66 },
};

const b64u = (s: string | undefined) => Buffer.from(s ?? '', 'base64url');

/** The SSH key type name of a node:crypto key (public or private). */
export function sshKeyType(key: KeyObject): SshKeyType {
  const kind = key.asymmetricKeyType;
  if (kind === 'rsa') return 'ssh-rsa';
  if (kind === 'ed25519') return 'ssh-ed25519';
  if (kind === 'ec') {
    const curve =
      CURVES[
        (key.asymmetricKeyDetails?.namedCurve ?? '')
          .replace(/^prime256v1$/, 'P-256')
          .replace(/^secp384r1$/, 'P-384')
          .replace(/^secp521r1$/, 'P-521')
      ];
    if (curve) return curve.name;
  }
  throw new Error(`unsupported key type ${kind ?? 'unknown'}`);
}

/** The public key blob (RFC 4253 §6.6 and RFC 5656 §3.1) of a node:crypto key. */
export function publicBlob(key: KeyObject): Buffer {
  const pub = key.type === 'public' ? key : createPublicKey(key);
  const jwk = pub.export({ format: 'jwk' });
  const type = sshKeyType(pub);
  if (type === 'ssh-rsa') return Buffer.concat([str(type), mpint(b64u(jwk.e)), mpint(b64u(jwk.n))]);
  if (type === 'ssh-ed25519') return Buffer.concat([str(type), str(b64u(jwk.x))]);
  const curve = CURVES[jwk.crv ?? '']!;
  return Buffer.concat([str(type), str(curve.id), str(Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]))]);
}

/** The one-line OpenSSH public key form, `type base64`, newline-terminated. */
export function publicLine(key: KeyObject): string {
  return `${sshKeyType(key)} ${publicBlob(key).toString('base64')}\n`;
}

/** The SSH signature blob of `data`: `string algorithm, string signature`. */
export function signatureBlob(key: KeyObject, data: Buffer, rsaSigner: RsaSigner = 'rsa-sha2-256'): Buffer {
  const type = sshKeyType(key);
  if (type === 'ssh-rsa') {
    const hash = rsaSigner === 'ssh-rsa' ? 'sha1' : rsaSigner === 'rsa-sha2-512' ? 'sha512' : 'sha256';
    return Buffer.concat([str(rsaSigner), str(sign(hash, data, key))]);
  }
  if (type === 'ssh-ed25519') return Buffer.concat([str(type), str(sign(null, data, key))]);
  const curve = Object.values(CURVES).find((c) => c.name === type)!;
  const rs = sign(curve.hash, data, { key, dsaEncoding: 'ieee-p1363' });
  const inner = Buffer.concat([mpint(rs.subarray(0, curve.size)), mpint(rs.subarray(curve.size))]);
  return Buffer.concat([str(type), str(inner)]);
}
