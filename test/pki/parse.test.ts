/** SubjectPublicKeyInfo import (lib/pki/parse.ts keyOf): every key shape to the same key, in canonical DER; garbage is a 400. */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { keyOf } from '../../lib/pki/parse';
import { openssl, withFiles } from '../helpers/openssl';

describe('SubjectPublicKeyInfo import', () => {
  it('imports every key shape the service uses to the same key, in canonical DER', () => {
    for (const [type, options] of [
      ['ec', { namedCurve: 'P-256' }],
      ['ec', { namedCurve: 'P-384' }],
      ['ec', { namedCurve: 'P-521' }],
      ['ec', { namedCurve: 'P-224' }],
      ['rsa', { modulusLength: 2048 }],
      ['rsa', { modulusLength: 3072, publicExponent: 3 }],
      ['ed25519', {}],
    ] as const) {
      const pub = generateKeyPairSync(type as 'ec', options as { namedCurve: string }).publicKey;
      const spki = pub.export({ format: 'der', type: 'spki' });
      const k = keyOf(spki);
      expect(k.spki.equals(spki)).toBe(true);
      expect(k.publicKey.equals(pub)).toBe(true);
    }
  });
  it('takes a compressed EC point through OpenSSL and answers garbage with an InvalidInput', () => {
    const pem = withFiles({}, (p) => {
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', p('k.pem')]);
      return openssl(['ec', '-in', p('k.pem'), '-pubout', '-conv_form', 'compressed']).out;
    });
    const spkiDer = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(spkiDer.length).toBe(59); // 0x02/0x03 and x only
    const k = keyOf(spkiDer);
    expect(k.keyType).toBe('ec');
    expect(k.keyBits).toBe(256);
    expect(k.publicKey.equals(createPublicKey(pem))).toBe(true);
    const offCurve = Buffer.from(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'der', type: 'spki' }));
    offCurve[offCurve.length - 1]! ^= 0x01;
    expect(() => keyOf(offCurve)).toThrow(InvalidInput);
    expect(() => keyOf(Buffer.from([0x30, 0x03, 0x30, 0x01, 0x00]))).toThrow(InvalidInput);
  });
});
