/** Issued keys (lib/pki/public-key.ts): SPKI, SEC1 and PKCS#8 laid out byte for byte as OpenSSL does. */
import { createECDH, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ecdhKey, issuedKeyOf, newEcKey } from '../../lib/pki/public-key';

describe('issued keys', () => {
  it('lays out SubjectPublicKeyInfo, SEC1 and PKCS#8 of existing keys exactly as OpenSSL does', () => {
    for (const k of [
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
      generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey,
      generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey,
      generateKeyPairSync('ed25519').privateKey,
      generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey,
    ]) {
      const issued = issuedKeyOf(k);
      expect(issued.type).toBe(k.asymmetricKeyType);
      expect(issued.spki.equals(createPublicKey(k).export({ format: 'der', type: 'spki' }))).toBe(true);
      expect(issued.privateDer(true).der.equals(k.export({ format: 'der', type: 'pkcs8' }))).toBe(true);
      const native =
        k.asymmetricKeyType === 'ec'
          ? k.export({ format: 'der', type: 'sec1' })
          : k.asymmetricKeyType === 'rsa'
            ? k.export({ format: 'der', type: 'pkcs1' })
            : k.export({ format: 'der', type: 'pkcs8' });
      expect(issued.privateDer(false).der.equals(native)).toBe(true);
    }
  });
  it('lays out fresh ECDH keys of every curve exactly as OpenSSL encodes them', () => {
    for (const bitsOf of [224, 256, 384, 521]) {
      for (let i = 0; i < 20; i++) {
        const issued = newEcKey(bitsOf);
        const sec1 = issued.privateDer(false);
        expect(sec1.label).toBe('EC PRIVATE KEY');
        // OpenSSL reads each encoding back to the same key and writes the same bytes.
        const k = createPrivateKey({ key: sec1.der, format: 'der', type: 'sec1' });
        expect(k.asymmetricKeyDetails?.namedCurve).toBe(
          { 224: 'secp224r1', 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' }[bitsOf],
        );
        expect(k.export({ format: 'der', type: 'sec1' }).equals(sec1.der)).toBe(true);
        expect(k.export({ format: 'der', type: 'pkcs8' }).equals(issued.privateDer(true).der)).toBe(true);
        expect(createPublicKey(k).export({ format: 'der', type: 'spki' }).equals(issued.spki)).toBe(true);
      }
    }
    expect(() => newEcKey(255)).toThrow(RangeError);
  });
  it('draws a fresh key pair on every call (the ECDH context per curve is reused)', () => {
    const keys = Array.from({ length: 200 }, () => newEcKey(256));
    expect(new Set(keys.map((k) => k.privateDer(false).der.toString('hex'))).size).toBe(200);
    expect(new Set(keys.map((k) => k.spki.toString('hex'))).size).toBe(200);
    // A key handed out earlier keeps its own bytes after later keys are drawn.
    const first = keys[0]!.privateDer(true).der;
    newEcKey(256);
    expect(keys[0]!.privateDer(true).der.equals(first)).toBe(true);
  });
  it('pads a private scalar with leading zero bytes to the curve size', () => {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.concat([Buffer.alloc(2), randomBytes(30)]));
    expect(ecdh.getPrivateKey().length).toBeLessThan(32);
    const sec1 = ecdhKey(256, ecdh).privateDer(false).der;
    const k = createPrivateKey({ key: sec1, format: 'der', type: 'sec1' });
    expect(k.export({ format: 'der', type: 'sec1' }).equals(sec1)).toBe(true);
    expect(
      Buffer.from(k.export({ format: 'jwk' }).d!, 'base64url').equals(
        Buffer.concat([Buffer.alloc(32 - ecdh.getPrivateKey().length), ecdh.getPrivateKey()]),
      ),
    ).toBe(true);
  });
});
