/** A signer over a private key held in this process (opened from its sealed copy). */
import { createPublicKey, generateKeyPair as nodeGenerateKeyPair, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { curveNamed, curveOfBits } from './curves';
import type { KeyType, SignatureAlgorithm, Signer } from './signer';

const generate = promisify(nodeGenerateKeyPair);

/** Key size and type of a node:crypto key, or undefined for a kind the service does not use. */
export function describeKey(key: KeyObject): { keyType: KeyType; keyBits: number } | undefined {
  const t = key.asymmetricKeyType;
  if (t === 'rsa') return { keyType: 'rsa', keyBits: key.asymmetricKeyDetails?.modulusLength ?? 0 };
  if (t === 'ec') {
    const bits = curveNamed(key.asymmetricKeyDetails?.namedCurve ?? '')?.bits;
    return bits ? { keyType: 'ec', keyBits: bits } : undefined;
  }
  if (t === 'ed25519') return { keyType: 'ed25519', keyBits: 256 };
  return undefined;
}

/** RSA off the event loop (it takes tens of milliseconds); EC and Ed25519 inline (tens of microseconds). */
export async function generateKey(keyType: KeyType, keyBits: number): Promise<KeyObject> {
  if (keyType === 'rsa') return (await generate('rsa', { modulusLength: keyBits, publicExponent: 65537 })).privateKey;
  if (keyType === 'ec') return generateKeyPairSync('ec', { namedCurve: (curveOfBits(keyBits) ?? curveOfBits(256)!).name }).privateKey;
  return generateKeyPairSync('ed25519').privateKey;
}

export class LocalSigner implements Signer {
  readonly kind = 'local';
  readonly keyType: KeyType;
  readonly keyBits: number;
  readonly spki: Buffer;

  constructor(readonly privateKey: KeyObject) {
    const d = describeKey(privateKey);
    if (!d) throw new Error('unsupported private key type');
    this.keyType = d.keyType;
    this.keyBits = d.keyBits;
    this.spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  }

  async sign(data: Buffer, alg: SignatureAlgorithm): Promise<Buffer> {
    return sign(alg.hash, data, this.privateKey);
  }
}
