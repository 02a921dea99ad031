/** Private keys as the reference returns them: `der` (PKCS#1 / SEC1; PKCS#8 for Ed25519) or `pkcs8`. */
import { toPem } from './pem';
import type { EncodedKey, IssuedKey } from './public-key';

export function encodePrivateKey(key: IssuedKey, privateKeyFormat: string): EncodedKey {
  return key.privateDer(privateKeyFormat === 'pkcs8');
}

/** The key text for a response: PEM, or base64 DER with format `der`. */
export function privateKeyText(key: IssuedKey, privateKeyFormat: string, format: string): string {
  const k = encodePrivateKey(key, privateKeyFormat);
  return format === 'der' ? k.der.toString('base64') : toPem(k.label, k.der);
}
