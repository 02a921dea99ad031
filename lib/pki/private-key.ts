/** Private keys as the reference returns them: `der` (PKCS#1 / SEC1; PKCS#8 for Ed25519) or `pkcs8`. */
import type { KeyObject } from 'node:crypto';
import { toPem } from './pem';
import { privateKeyDer } from './public-key';

export interface EncodedKey {
  der: Buffer;
  label: string;
}

export function encodePrivateKey(key: KeyObject, privateKeyFormat: string): EncodedKey {
  return privateKeyDer(key, privateKeyFormat === 'pkcs8');
}

/** The key text for a response: PEM, or base64 DER with format `der`. */
export function privateKeyText(key: KeyObject, privateKeyFormat: string, format: string): string {
  const k = encodePrivateKey(key, privateKeyFormat);
  return format === 'der' ? k.der.toString('base64') : toPem(k.label, k.der);
}
