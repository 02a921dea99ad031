/**
 * The lean certificate reader (lib/pki/der/cert-reader.ts) against the ASN.1 schema library and
 * OpenSSL: the same serial, names, validity, CA flags and key for what openssl makes; a 400
 * (never another error) for garbage and corruptions.
 */
import 'reflect-metadata';
import { AsnConvert } from '@peculiar/asn1-schema';
import { BasicConstraints, Certificate } from '@peculiar/asn1-x509';
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { readCert } from '../../../lib/pki/der/cert-reader';
import { parseCertificate } from '../../../lib/pki/parse';
import { onePem } from '../../../lib/pki/pem';
import { openssl, withFiles } from '../../helpers/openssl';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];

/** A self-signed certificate made by openssl with the given key and extra `req -x509` arguments. */
function makeCert(subject: string, keyArgs: string[], extra: string[]): Buffer {
  const pem = withFiles({}, (p) => {
    const r = openssl([
      'req',
      '-x509',
      '-new',
      '-nodes',
      ...keyArgs,
      '-keyout',
      p('k.pem'),
      '-subj',
      subject,
      ...extra,
      '-out',
      p('c.pem'),
    ]);
    if (!r.ok) throw new Error(r.out);
    return openssl(['x509', '-in', p('c.pem')]).out;
  });
  return onePem(pem, ['CERTIFICATE'], 'certificate');
}

describe('the lean certificate reader', () => {
  const cases: [string, string, string[], string[]][] = [
    [
      'EC CA with path length and key id',
      '/CN=Root CA/O=Example/C=NZ',
      EC,
      ['-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE,pathlen:2', '-addext', 'subjectKeyIdentifier=hash'],
    ],
    [
      'RSA leaf, serial with the top bit set, no SKI',
      '/CN=leaf.example.com',
      ['-newkey', 'rsa:2048'],
      ['-days', '2', '-set_serial', '0x80aabbccdd', '-addext', 'basicConstraints=CA:FALSE', '-addext', 'subjectKeyIdentifier=none'],
    ],
    ['Ed25519, valid past 2050 (GeneralizedTime)', '/CN=Long Lived/OU=Ops/OU=Sec', ['-newkey', 'ed25519'], ['-days', '12000']],
    [
      'EC P-384 CA without a path length',
      '/CN=Int CA/serialNumber=7',
      ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
      ['-days', '30', '-addext', 'basicConstraints=critical,CA:TRUE'],
    ],
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
  it('answers garbage, truncation and corruption with an InvalidInput, never another error', () => {
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
        expect(e).toBeInstanceOf(InvalidInput);
      }
    }
  });
});
