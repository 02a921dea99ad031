/**
 * The lean CSR and certificate readers and SPKI import against the ASN.1 schema library and
 * OpenSSL: the same subject, names, CA flags, validity and key for what openssl makes;
 * canonical SPKI bytes; a 400 (never another error) for garbage and corruptions.
 */
import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { BasicConstraints, Certificate, Extensions, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BadRequest } from '../../lib/errors';
import { readCert } from '../../lib/pki/der/cert-reader';
import { readCsr } from '../../lib/pki/der/csr-reader';
import { keyOf, parseCertificate, parseCsr } from '../../lib/pki/parse';
import { onePem } from '../../lib/pki/pem';
import { makeCsr, openssl, withFiles } from '../helpers/openssl';

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
    ['EC P-256, SANs of every kind', '/CN=www.example.com/O=Example/O=Second Org/OU=Ops/C=NZ/L=Wellington/ST=WGN/street=1 Main St/postalCode=6011/serialNumber=42', EC,
      ['-addext', 'subjectAltName=DNS:a.example.com,DNS:*.b.example.com,email:ops@example.com,IP:10.1.2.3,IP:2001:db8:0:0:0:0:0:1,IP:::ffff:1.2.3.4,URI:spiffe://example.com/x']],
    ['RSA-2048, UTF-8 subject', '/CN=Ünïcode名前/O=Exämple', ['-newkey', 'rsa:2048', '-utf8'], []],
    ['Ed25519, CA basic constraints', '/CN=ca.example.com', ['-newkey', 'ed25519'], ['-addext', 'basicConstraints=critical,CA:TRUE']],
    ['EC P-384, CA:FALSE', '/CN=leaf.example.com', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], ['-addext', 'basicConstraints=CA:FALSE']],
    ['EC P-521, empty subject', '/', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-521'], ['-addext', 'subjectAltName=DNS:only.example.com']],
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
      expect({ ...lean.sans, ip: lean.sans.ip.map((ip) => ip.toLowerCase()) }).toEqual({ ...ref.sans, ip: ref.sans.ip.map((ip) => ip.toLowerCase()) });
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
  it('answers garbage, truncation and trailing bytes with a BadRequest, never another error', () => {
    const good = der(makeCsr('/CN=x.example.com', EC, ['-addext', 'subjectAltName=DNS:x.example.com']));
    const inputs: Buffer[] = [Buffer.alloc(0), Buffer.from([0x30]), Buffer.from([0x30, 0x84, 0xff, 0xff, 0xff, 0xff]), Buffer.concat([good, Buffer.from([0])]), Buffer.from('not der at all')];
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
        expect(e).toBeInstanceOf(BadRequest);
      }
    }
  });
});

describe('SubjectPublicKeyInfo import', () => {
  it('imports every key shape the service uses to the same key, in canonical DER', () => {
    for (const [type, options] of [
      ['ec', { namedCurve: 'P-256' }], ['ec', { namedCurve: 'P-384' }], ['ec', { namedCurve: 'P-521' }], ['ec', { namedCurve: 'P-224' }],
      ['rsa', { modulusLength: 2048 }], ['rsa', { modulusLength: 3072, publicExponent: 3 }], ['ed25519', {}],
    ] as const) {
      const pub = generateKeyPairSync(type as 'ec', options as { namedCurve: string }).publicKey;
      const spki = pub.export({ format: 'der', type: 'spki' });
      const k = keyOf(spki);
      expect(k.spki.equals(spki)).toBe(true);
      expect(k.publicKey.equals(pub)).toBe(true);
    }
  });
  it('takes a compressed EC point through OpenSSL and answers garbage with a BadRequest', () => {
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
    expect(() => keyOf(offCurve)).toThrow(BadRequest);
    expect(() => keyOf(Buffer.from([0x30, 0x03, 0x30, 0x01, 0x00]))).toThrow(BadRequest);
  });
});

/** A self-signed certificate made by openssl with the given key and extra `req -x509` arguments. */
function makeCert(subject: string, keyArgs: string[], extra: string[]): Buffer {
  const pem = withFiles({}, (p) => {
    const r = openssl(['req', '-x509', '-new', '-nodes', ...keyArgs, '-keyout', p('k.pem'), '-subj', subject, ...extra, '-out', p('c.pem')]);
    if (!r.ok) throw new Error(r.out);
    return openssl(['x509', '-in', p('c.pem')]).out;
  });
  return onePem(pem, ['CERTIFICATE'], 'certificate');
}

describe('the lean certificate reader', () => {
  const cases: [string, string, string[], string[]][] = [
    ['EC CA with path length and key id', '/CN=Root CA/O=Example/C=NZ', EC, ['-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:2', '-addext', 'subjectKeyIdentifier=hash']],
    ['RSA leaf, serial with the top bit set, no SKI', '/CN=leaf.example.com', ['-newkey', 'rsa:2048'], ['-days', '2', '-set_serial', '0x80aabbccdd', '-addext', 'basicConstraints=CA:FALSE', '-addext', 'subjectKeyIdentifier=none']],
    ['Ed25519, valid past 2050 (GeneralizedTime)', '/CN=Long Lived/OU=Ops/OU=Sec', ['-newkey', 'ed25519'], ['-days', '12000']],
    ['EC P-384 CA without a path length', '/CN=Int CA/serialNumber=7', ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'], ['-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE']],
  ];
  for (const [name, subject, keyArgs, extra] of cases) {
    it(`reads what the schema library reads: ${name}`, () => {
      const d = makeCert(subject, keyArgs, extra);
      const lean = readCert(d);
      const ref = AsnConvert.parse(d, Certificate).tbsCertificate;
      expect(lean.serial.equals(Buffer.from(ref.serialNumber))).toBe(true);
      expect(lean.subjectDer.equals(Buffer.from(AsnConvert.serialize(ref.subject)))).toBe(true);
      expect(lean.issuerDer.equals(Buffer.from(AsnConvert.serialize(ref.issuer)))).toBe(true);
      expect(lean.spki.equals(Buffer.from(AsnConvert.serialize(ref.subjectPublicKeyInfo)))).toBe(true);
      expect(lean.notBefore).toBe(ref.validity.notBefore.getTime().getTime());
      expect(lean.notAfter).toBe(ref.validity.notAfter.getTime().getTime());
      const exts = [...(ref.extensions ?? [])];
      const bc = exts.find((e) => e.extnID === '2.5.29.19');
      const bcv = bc ? AsnConvert.parse(bc.extnValue.buffer, BasicConstraints) : undefined;
      expect(lean.isCa).toBe(bcv?.cA ?? false);
      expect(lean.pathLen).toBe(bcv?.cA ? bcv.pathLenConstraint : undefined);
      const ski = exts.find((e) => e.extnID === '2.5.29.14');
      expect(lean.subjectKeyId?.toString('hex')).toBe(ski ? Buffer.from(ski.extnValue.buffer).subarray(2).toString('hex') : undefined);
      const values: Record<string, string[]> = {};
      for (const rdn of ref.subject) for (const atv of rdn) (values[atv.type] ??= []).push(atv.value.toString());
      expect(lean.subject.commonName).toBe(values['2.5.4.3']?.[0]);
      expect(lean.subject.ou ?? []).toEqual(values['2.5.4.11'] ?? []);
      expect(lean.subject.serialNumber).toBe(values['2.5.4.5']?.[0]);
      const parsed = parseCertificate(d);
      expect(parsed.publicKey.export({ format: 'der', type: 'spki' }).equals(parsed.spki)).toBe(true);
    });
  }
  it('reads a version 1 certificate (no version field, no extensions)', () => {
    const v1 = withFiles({}, (p) => {
      openssl(['req', '-new', '-nodes', ...EC, '-keyout', p('k.pem'), '-subj', '/CN=v1', '-out', p('r.pem')]);
      const r = openssl(['x509', '-req', '-in', p('r.pem'), '-signkey', p('k.pem'), '-days', '1', '-set_serial', '5']);
      if (!r.ok) throw new Error(r.out);
      return r.out;
    });
    const d = onePem(v1, ['CERTIFICATE'], 'certificate');
    expect(AsnConvert.parse(d, Certificate).tbsCertificate.version).toBe(0);
    const c = readCert(d);
    expect(c).toMatchObject({ isCa: false, subject: { commonName: 'v1' } });
    expect(c.serial).toEqual(Buffer.from([5]));
  });
  it('answers garbage, truncation and corruption with a BadRequest, never another error', () => {
    const good = makeCert('/CN=x.example.com', EC, ['-days', '1', '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:0']);
    const inputs: Buffer[] = [Buffer.alloc(0), Buffer.from([0x30, 0x00]), Buffer.concat([good, Buffer.from([0])])];
    for (let cut = 1; cut < good.length; cut += 5) inputs.push(good.subarray(0, cut));
    for (let i = 0; i < good.length; i += 2) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x5a;
      inputs.push(bad);
    }
    for (const input of inputs) {
      try {
        parseCertificate(input);
      } catch (e) {
        expect(e).toBeInstanceOf(BadRequest);
      }
    }
  });
});
