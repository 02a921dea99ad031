/** The CA key pair: generated (every type and size the spec lists) or imported, then checked. */
import { createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { InvalidInput } from '../domain-errors';
import { readPublicLine } from './public-line';
import { publicBlob, publicLine } from './ssh-key';
import { parseSshKey } from './ssh2-lazy';

const generate = promisify(generateKeyPair);

export interface GenerateOptions {
  keyType: string;
  keyBits: number;
}

const RSA_BITS = [2048, 3072, 4096];
const EC_BITS: Record<number, string> = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };
const NAMED_EC: Record<string, number> = { 'ecdsa-sha2-nistp256': 256, 'ecdsa-sha2-nistp384': 384, 'ecdsa-sha2-nistp521': 521 };

/** Generates a private key (a CA key, or the key pair of issue/<role>); key_bits 0 gives 4096-bit RSA or P-256. */
export async function generateSshKey(o: GenerateOptions): Promise<KeyObject> {
  const type = o.keyType;
  if (type === 'ssh-rsa' || type === 'rsa') {
    const bits = o.keyBits || 4096;
    if (!RSA_BITS.includes(bits)) throw new InvalidInput(`invalid key_bits ${bits} for key_type ${type}: use 2048, 3072 or 4096`);
    return (await generate('rsa', { modulusLength: bits })).privateKey;
  }
  if (type === 'ec' || type in NAMED_EC) {
    const fixed = NAMED_EC[type];
    const bits = o.keyBits || fixed || 256;
    if (fixed !== undefined && bits !== fixed) throw new InvalidInput(`invalid key_bits ${bits} for key_type ${type}`);
    const curve = EC_BITS[bits];
    if (!curve) throw new InvalidInput(`invalid key_bits ${bits} for key_type ${type}: use 256, 384 or 521`);
    return (await generate('ec', { namedCurve: curve })).privateKey;
  }
  if (type === 'ssh-ed25519' || type === 'ed25519') return (await generate('ed25519')).privateKey;
  throw new InvalidInput(`unsupported key_type "${type}"`);
}

/** Reads a private key in PKCS#1, PKCS#8, SEC1 or OpenSSH form (unencrypted). */
export async function parsePrivateKey(text: string, field = 'private_key'): Promise<KeyObject> {
  const clean = text.trim();
  if (!clean) throw new InvalidInput(`missing ${field}`);
  try {
    if (!clean.includes('OPENSSH PRIVATE KEY')) return checkType(createPrivateKey(clean), field);
    // OpenSSH's own format: ssh2 reads it into a PEM node:crypto takes (sshpk's PKCS#8 output does not parse).
    const first = await parseSshKey(clean);
    if (!first || first instanceof Error || !first.isPrivateKey()) throw new Error('not an unencrypted private key');
    return checkType(createPrivateKey(first.getPrivatePEM()), field);
  } catch (e) {
    if (e instanceof InvalidInput) throw e;
    throw new InvalidInput(`${field} is not a valid unencrypted private key`, { cause: e });
  }
}

function checkType(key: KeyObject, field: string): KeyObject {
  try {
    publicBlob(key);
  } catch {
    throw new InvalidInput(`${field} has an unsupported key type (use RSA, ECDSA P-256/384/521 or Ed25519)`);
  }
  if (key.asymmetricKeyType === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
    throw new InvalidInput(`${field}: RSA keys shorter than 2048 bits are refused`);
  }
  return key;
}

/** Imports a CA key pair, checking the public key belongs to the private key. */
export async function importCaKey(privateText: string, publicText: string): Promise<KeyObject> {
  const key = await parsePrivateKey(privateText);
  let given: Buffer;
  try {
    given = readPublicLine(publicText.trim()).blob;
  } catch (e) {
    throw new InvalidInput('public_key is not a valid SSH public key', { cause: e });
  }
  if (!given.equals(publicBlob(key))) throw new InvalidInput('public_key does not match private_key');
  return key;
}

export function caPublicLine(key: KeyObject): string {
  return publicLine(key);
}
