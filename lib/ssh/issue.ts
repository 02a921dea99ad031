/** issue/<role>: the server generates a key pair and signs its public half under a ca role. */
import type { KeyObject } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { generateSshKey } from './ca-key';
import type { CaSigner } from './certificate';
import type { Role } from './role';
import { signKey, type SignContext, type SignInput, type Signed } from './sign';
import { openSshEd25519PrivateKey } from './openssh-private';
import { publicLine } from './ssh-key';

export interface IssueInput extends Omit<SignInput, 'publicKey'> {
  /** rsa (default), ec, ed25519 or an OpenSSH type name. */
  keyType: string;
  /** 0: 4096-bit RSA or P-256. */
  keyBits: number;
}

export interface Issued extends Signed {
  privateKey: string;
  privateKeyType: string;
}

/** PKCS#1 for RSA, SEC1 for ECDSA, OpenSSH's own format for Ed25519 (as the reference answers). */
export function privateKeyText(key: KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return key.export({ format: 'pem', type: 'pkcs1' }).toString();
  if (key.asymmetricKeyType === 'ec') return key.export({ format: 'pem', type: 'sec1' }).toString();
  return openSshEd25519PrivateKey(key);
}

export async function issueKey(role: Role, ca: CaSigner, input: IssueInput, ctx: SignContext): Promise<Issued> {
  if (role.keyType !== 'ca') throw new InvalidInput(`role key type "${role.keyType}" is not allowed to issue key pairs`);
  const key = await generateSshKey({ keyType: input.keyType, keyBits: input.keyBits });
  const signed = signKey(role, ca, { ...input, publicKey: publicLine(key) }, ctx);
  return { ...signed, privateKey: privateKeyText(key), privateKeyType: input.keyType };
}
