/**
 * The lean CSR reader (lib/pki/der/csr-reader.ts) against the ASN.1 schema library and OpenSSL:
 * the same subject, names and CA flag for what openssl makes; a 400 (never another error) for
 * garbage and corruptions.
 */
import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { Extensions, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { readCsr } from '../../../lib/pki/der/csr-reader';
import { parseCsr } from '../../../lib/pki/parse';
import { onePem } from '../../../lib/pki/pem';
import { makeCsr } from '../../helpers/openssl';

const der = (pem: string) => onePem(pem, ['CERTIFICATE REQUEST'], 'csr');

/** What the schema library reads from the same CSR: the reference for the lean reader. */
function reference(d: Buffer) {
  const csr = AsnConvert.parse(d, CertificationRequest);
  const info = csr.certificationRequestInfo;
  const values: Record<string, string[]> = {};
  for (const rdn of info.subject) for (const atv of rdn) (values[atv.type] ??= []).push(atv.value.toString());
  const sans = { dns: [] as string[], email: [] as string[], ip: [] as string[], uri: [] as string[] };
  const ext = info.attributes.find((a) => a.type === '1.2.840.113549.1.9.14');
  if (ext?.values[0]) {
    const san = AsnConvert.parse(ext.values[0], Extensions).find((e) => e.extnID === '2.5.29.17');
    if (san) {
      for (const g of AsnConvert.parse(san.extnValue.buffer, SubjectAlternativeName)) {
        if (g.dNSName !== undefined) sans.dns.push(g.dNSName);
        else if (g.rfc822Name !== undefined) sans.email.push(g.rfc822Name);
        else if (g.iPAddress !== undefined) sans.ip.push(g.iPAddress);
        else if (g.uniformResourceIdentifier !== undefined) sans.uri.push(g.uniformResourceIdentifier);
      }
    }
  }
  return { values, sans, subjectDer: Buffer.from(AsnConvert.serialize(info.subject)) };
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

describe('the lean CSR reader', () => {
  const cases: [string, string, string[], string[]][] = [
    [
      'EC P-256, SANs of every kind',
      '/CN=www.example.com/O=Example/O=Second Org/OU=Ops/C=NZ/L=Wellington/ST=WGN/street=1 Main St/postalCode=6011/serialNumber=42',
      EC,
      [
        '-addext',
        'subjectAltName=DNS:a.example.com,DNS:*.b.example.com,email:ops@example.com,IP:10.1.2.3,IP:2001:db8:0:0:0:0:0:1,IP:::ffff:1.2.3.4,URI:spiffe://example.com/x',
      ],
    ],
    ['RSA-2048, UTF-8 subject', '/CN=Ünïcode名前/O=Exämple', ['-newkey', 'rsa:2048', '-utf8'], []],
    ['Ed25519, CA basic constraints', '/CN=ca.example.com', ['-newkey', 'ed25519'], ['-addext', 'basicConstraints=critical,CA:TRUE']],
    [
      'EC P-384, CA:FALSE',
      '/CN=leaf.example.com',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
      ['-addext', 'basicConstraints=CA:FALSE'],
    ],
    [
      'EC P-521, empty subject',
      '/',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'],
      ['-addext', 'subjectAltName=DNS:only.example.com'],
    ],
  ];
  for (const [name, subject, keyArgs, extra] of cases) {
    it(`reads what the schema library reads: ${name}`, () => {
      const d = der(makeCsr(subject, keyArgs, extra));
      const lean = readCsr(d);
      const ref = reference(d);
      expect(lean.subjectDer.equals(ref.subjectDer)).toBe(true);
      expect(lean.subject.commonName).toBe(ref.values['2.5.4.3']?.[0]);
      expect(lean.subject.organization ?? []).toEqual(ref.values['2.5.4.10'] ?? []);
      expect(lean.subject.ou ?? []).toEqual(ref.values['2.5.4.11'] ?? []);
      expect(lean.subject.country ?? []).toEqual(ref.values['2.5.4.6'] ?? []);
      expect(lean.subject.streetAddress ?? []).toEqual(ref.values['2.5.4.9'] ?? []);
      expect(lean.subject.postalCode ?? []).toEqual(ref.values['2.5.4.17'] ?? []);
      expect(lean.subject.serialNumber).toBe(ref.values['2.5.4.5']?.[0]);
      expect({ ...lean.sans, ip: lean.sans.ip.map((ip) => ip.toLowerCase()) }).toEqual({
        ...ref.sans,
        ip: ref.sans.ip.map((ip) => ip.toLowerCase()),
      });
      expect(lean.isCa).toBe(extra.join(' ').includes('CA:TRUE'));
      // The whole parse: signature checked, key imported, canonical SPKI equal to OpenSSL's.
      const parsed = parseCsr(d);
      expect(parsed.spki.equals(parsed.publicKey.export({ format: 'der', type: 'spki' }))).toBe(true);
    });
  }
  it('prints IPv6 SANs in the compressed form the names code compares', () => {
    const d = der(makeCsr('/CN=x', EC, ['-addext', 'subjectAltName=IP:2001:db8:0:0:0:0:0:1,IP:fe80:0:0:0:0:0:0:a']));
    expect(readCsr(d).sans.ip).toEqual(['2001:db8::1', 'fe80::a']);
  });
  it('refuses a CSR whose signature does not verify', () => {
    const d = Buffer.from(der(makeCsr('/CN=x', EC)));
    d[d.length - 5]! ^= 0x01;
    expect(() => parseCsr(d)).toThrow(/signature does not verify|could not be parsed/);
  });
  it('answers garbage, truncation and trailing bytes with an InvalidInput, never another error', () => {
    const good = der(makeCsr('/CN=x.example.com', EC, ['-addext', 'subjectAltName=DNS:x.example.com']));
    const inputs: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from([0x30]),
      Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]),
      Buffer.concat([good, Buffer.from([0])]),
      Buffer.from('not der at all'),
    ];
    for (let cut = 1; cut < good.length; cut += 7) inputs.push(good.subarray(0, cut));
    // Every single-byte corruption of the structure (tags and lengths included).
    for (let i = 0; i < good.length; i += 3) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0xa5;
      inputs.push(bad);
    }
    for (const input of inputs) {
      try {
        parseCsr(input);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidInput);
      }
    }
  });
});
