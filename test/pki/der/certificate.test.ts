/** The lean certificate builder (lib/pki/der/certificate.ts): a leaf parsed back by @peculiar/x509 with every field, and accepted by openssl. */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keyIdentifier, signatureAlgorithm } from '../../../lib/keys/signer';
import { LocalSigner } from '../../../lib/keys/signer-local';
import { buildCertificate } from '../../../lib/pki/der/certificate';
import { encodeName } from '../../../lib/pki/der/name';
import { DEFAULT_URLS } from '../../../lib/pki/config';
import { toPem } from '../../../lib/pki/pem';
import { issuedKeyOf } from '../../../lib/pki/public-key';
import { altNamesOf, gatherNames } from '../../../lib/pki/request-names';
import { randomSerial } from '../../../lib/pki/serial';
import { leafExtensions } from '../../../lib/pki/template';
import { openssl, withFiles } from '../../helpers/openssl';

describe('a leaf from the lean builder', () => {
  it('is parsed back by @peculiar/x509 with every field, and openssl accepts it', async () => {
    const ca = new LocalSigner(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey);
    const caName = encodeName({ commonName: 'Lean CA', organization: ['Latchkey'] });
    const leafKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const spki = issuedKeyOf(leafKey).spki;
    const serial = randomSerial();
    const names = gatherNames({
      commonName: 'www.example.com',
      altNames: ['api.example.com', 'ops@example.com'],
      ipSans: ['10.1.2.3', '2001:db8::1'],
      uriSans: ['spiffe://example.com/x'],
      otherSans: [],
      excludeCnFromSans: false,
    });
    const notBefore = Date.UTC(2026, 0, 1);
    const der = await buildCertificate(
      {
        serial,
        issuer: caName,
        subject: encodeName({ commonName: 'www.example.com', country: ['NZ'] }),
        notBefore,
        notAfter: notBefore + 86_400_000,
        spki,
        extensions: leafExtensions({
          spki,
          keyType: 'ec',
          issuerKeyId: keyIdentifier(ca.spki),
          altNames: altNamesOf(names),
          emptySubject: false,
          keyUsage: ['DigitalSignature', 'KeyAgreement'],
          extKeyUsage: ['ServerAuth'],
          extKeyUsageOids: ['1.3.6.1.5.5.7.3.17'],
          policyIdentifiers: ['2.23.140.1.2.1'],
          basicConstraintsValidForNonCa: false,
          urls: { ...DEFAULT_URLS, crlDistributionPoints: ['http://crl.example.com/crl'] },
        }),
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
