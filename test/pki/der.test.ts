/** The lean DER builder: byte-exact where node:crypto/OpenSSL can say, and parsed back by @peculiar/x509. */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createECDH, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdentifier, signatureAlgorithm } from '../../lib/keys/signer';
import { LocalSigner } from '../../lib/keys/signer-local';
import { int, oid, seq, time, uint, utf8 } from '../../lib/pki/der/asn1';
import { buildCertificate } from '../../lib/pki/der/certificate';
import { encodeName } from '../../lib/pki/der/name';
import { DEFAULT_URLS } from '../../lib/pki/config';
import { toPem } from '../../lib/pki/pem';
import { ecdhKey, issuedKeyOf, newEcKey } from '../../lib/pki/public-key';
import { altNamesOf, gatherNames } from '../../lib/pki/request-names';
import { randomSerial } from '../../lib/pki/serial';
import { leafExtensions } from '../../lib/pki/template';
import { openssl, withFiles } from '../helpers/openssl';

describe('DER primitives', () => {
  it('encodes lengths in short and long form', () => {
    expect(utf8('a'.repeat(5)).subarray(0, 2)).toEqual(Buffer.from([0x0c, 5]));
    expect(utf8('a'.repeat(200)).subarray(0, 3)).toEqual(Buffer.from([0x0c, 0x81, 200]));
    expect(utf8('a'.repeat(300)).subarray(0, 4)).toEqual(Buffer.from([0x0c, 0x82, 0x01, 0x2c]));
    expect(utf8('a'.repeat(70_000)).subarray(0, 5)).toEqual(Buffer.from([0x0c, 0x83, 0x01, 0x11, 0x70]));
    expect(seq(undefined, int(0), undefined)).toEqual(Buffer.from([0x30, 3, 2, 1, 0]));
  });
  it('encodes integers, OIDs and times as OpenSSL reads them', () => {
    expect(uint(Buffer.from([0x80]))).toEqual(Buffer.from([2, 2, 0, 0x80]));
    expect(uint(Buffer.from([0, 0, 5]))).toEqual(Buffer.from([2, 1, 5]));
    expect(oid('1.2.840.113549.1.1.11').toString('hex')).toBe('06092a864886f70d01010b');
    expect(oid('2.999.3').toString('hex')).toBe('0603883703');
    expect(() => oid('3.1')).toThrow();
    expect(time(Date.UTC(2049, 11, 31, 23, 59, 59)).toString('latin1')).toContain('491231235959Z');
    expect(time(Date.UTC(2050, 0, 1)).toString('latin1')).toContain('20500101000000Z');
    expect(time(Date.UTC(9999, 11, 31, 23, 59, 59))[0]).toBe(0x18);
  });
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
      const native = k.asymmetricKeyType === 'ec' ? k.export({ format: 'der', type: 'sec1' }) : k.asymmetricKeyType === 'rsa' ? k.export({ format: 'der', type: 'pkcs1' }) : k.export({ format: 'der', type: 'pkcs8' });
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
        expect(k.asymmetricKeyDetails?.namedCurve).toBe({ 224: 'secp224r1', 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' }[bitsOf]);
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
    expect(Buffer.from(k.export({ format: 'jwk' }).d!, 'base64url').equals(Buffer.concat([Buffer.alloc(32 - ecdh.getPrivateKey().length), ecdh.getPrivateKey()]))).toBe(true);
  });
});

describe('a leaf from the lean builder', () => {
  it('is parsed back by @peculiar/x509 with every field, and openssl accepts it', async () => {
    const ca = new LocalSigner(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey);
    const caName = encodeName({ commonName: 'Lean CA', organization: ['Latchkey'] });
    const leafKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const spki = issuedKeyOf(leafKey).spki;
    const serial = randomSerial();
    const names = gatherNames({ commonName: 'www.example.com', altNames: ['api.example.com', 'ops@example.com'], ipSans: ['10.1.2.3', '2001:db8::1'], uriSans: ['spiffe://example.com/x'], otherSans: [], excludeCnFromSans: false });
    const notBefore = Date.UTC(2026, 0, 1);
    const der = await buildCertificate(
      {
        serial, issuer: caName, subject: encodeName({ commonName: 'www.example.com', country: ['NZ'] }), notBefore, notAfter: notBefore + 86_400_000, spki,
        extensions: leafExtensions({ spki, keyType: 'ec', issuerKeyId: keyIdentifier(ca.spki), altNames: altNamesOf(names), emptySubject: false, keyUsage: ['DigitalSignature', 'KeyAgreement'],
          extKeyUsage: ['ServerAuth'], extKeyUsageOids: ['1.3.6.1.5.5.7.3.17'], policyIdentifiers: ['2.23.140.1.2.1'], basicConstraintsValidForNonCa: false, urls: { ...DEFAULT_URLS, crlDistributionPoints: ['http://crl.example.com/crl'] } }),
      },
      ca,
      signatureAlgorithm(ca),
    );
    const cert = new x509.X509Certificate(der);
    expect(cert.serialNumber).toBe(serial.toString('hex'));
    expect(cert.subject).toBe('C=NZ, CN=www.example.com');
    expect(cert.issuer).toBe('O=Latchkey, CN=Lean CA');
    expect(cert.notBefore.getTime()).toBe(notBefore);
    expect(cert.signatureAlgorithm).toMatchObject({ name: 'ECDSA', hash: { name: 'SHA-384' } });
    const san = cert.getExtension(x509.SubjectAlternativeNameExtension)!;
    expect(san.names.toJSON()).toEqual([
      { type: 'email', value: 'ops@example.com' },
      { type: 'dns', value: 'www.example.com' },
      { type: 'dns', value: 'api.example.com' },
      { type: 'url', value: 'spiffe://example.com/x' },
      { type: 'ip', value: '10.1.2.3' },
      { type: 'ip', value: '2001:db8::1' },
    ]);
    const ku = cert.getExtension(x509.KeyUsagesExtension)!;
    expect(ku.critical).toBe(true);
    expect(ku.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement);
    expect(cert.getExtension(x509.ExtendedKeyUsageExtension)!.usages).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.17']);
    expect(Buffer.from(cert.getExtension(x509.AuthorityKeyIdentifierExtension)!.keyId!, 'hex')).toEqual(keyIdentifier(ca.spki));
    expect(await cert.verify({ publicKey: new x509.PublicKey(ca.spki), signatureOnly: true })).toBe(true);
    const out = withFiles({ 'c.pem': toPem('CERTIFICATE', der) }, (p) => openssl(['x509', '-in', p('c.pem'), '-noout', '-text']));
    expect(out.ok).toBe(true);
    expect(out.out).toMatch(/CRL Distribution Points:\s+Full Name:\s+URI:http:\/\/crl\.example\.com\/crl/);
    expect(out.out).toMatch(/Policy: 2\.23\.140\.1\.2\.1/);
  });
});
