/** Key type and size rules (roles, root and intermediate generation, CSR keys). */
import { InvalidInput } from '../domain-errors';

const RSA_BITS = [2048, 3072, 4096];
const EC_BITS = [224, 256, 384, 521];

/** The effective key_bits for a key type (0 means the default); throws 400 for a bad pair. */
export function checkKeyParams(keyType: string, keyBits: number): number {
  if (keyType === 'rsa') {
    const bits = keyBits || 2048;
    if (!RSA_BITS.includes(bits)) throw new InvalidInput(`unsupported bit length for RSA key: ${keyBits}`);
    return bits;
  }
  if (keyType === 'ec') {
    const bits = keyBits || 256;
    if (!EC_BITS.includes(bits)) throw new InvalidInput(`unsupported bit length for EC key: ${keyBits}`);
    return bits;
  }
  if (keyType === 'ed25519') return 0;
  throw new InvalidInput(`unknown key_type "${keyType}"`);
}

/**
 * A CSR key against a role's key_type/key_bits, as the reference server checks it: the type
 * must match, and key_bits is a minimum, never an exact size (`any`: RSA >= 2048, EC >= 224).
 */
export function checkCsrKey(role: { keyType: string; keyBits: number }, key: { keyType: string; keyBits: number }): void {
  if (key.keyType === 'rsa' && key.keyBits < 2048)
    throw new InvalidInput(`RSA keys < 2048 bits are unsafe and not supported: got ${key.keyBits}`);
  if (key.keyType === 'ec' && key.keyBits < 224) throw new InvalidInput(`EC keys < 224 bits are not supported: got ${key.keyBits}`);
  if (role.keyType === 'any') return;
  if (role.keyType !== key.keyType) throw new InvalidInput(`role requires keys of type ${role.keyType}, the CSR has a ${key.keyType} key`);
  if (key.keyType !== 'ed25519' && role.keyBits && key.keyBits < role.keyBits) {
    throw new InvalidInput(`role requires a minimum of a ${role.keyBits}-bit key, but CSR's key is ${key.keyBits} bits`);
  }
}
