/**
 * A lean PKCS#10 reader for the sign paths: the parts the policy code needs, read straight off
 * the DER (the ASN.1 schema library is far slower; figures in BENCHMARKS.md). Anything malformed
 * is an InvalidInput from the bounds-checked TLV reader.
 *
 *   CertificationRequest ::= SEQUENCE { info SEQUENCE { version INTEGER, subject Name,
 *     subjectPKInfo SEQUENCE, attributes [0] SET OF Attribute }, signatureAlgorithm, signature }
 */
import { InvalidInput } from '../../domain-errors';
import { oid } from './asn1';
import { readName, type Subject } from './name';
import { children, expectTlv as expect, readTlv } from './reader';

export interface CsrNames {
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
}

export interface CsrParts {
  /** The signed CertificationRequestInfo, for the signature check. */
  tbs: Buffer;
  /** The signature algorithm's OID as its DER TLV. */
  signatureOid: Buffer;
  signature: Buffer;
  subjectDer: Buffer;
  subject: Subject;
  /** The SubjectPublicKeyInfo as sent. */
  spki: Buffer;
  sans: CsrNames;
  isCa: boolean;
  /** The requested extensions as sent: `id` is the hex of the OID's DER, `der` the Extension. */
  extensions: { id: string; der: Buffer }[];
}

const hex = (dotted: string) => oid(dotted).toString('hex');

const EXTENSION_REQUEST = hex('1.2.840.113549.1.9.14');
const SUBJECT_ALT_NAME = hex('2.5.29.17');
const BASIC_CONSTRAINTS = hex('2.5.29.19');

function ipText(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  if (b.length !== 16) throw new InvalidInput('malformed IP address in subjectAltName');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  // The WHATWG URL parser prints an IPv6 address in its canonical compressed form.
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

function sansOf(extnValue: Buffer, out: CsrNames): void {
  for (const g of children(expect(readTlv(extnValue), 0x30, 'subjectAltName').value)) {
    if (g.tag === 0x81) out.email.push(g.value.toString('latin1'));
    else if (g.tag === 0x82) out.dns.push(g.value.toString('latin1'));
    else if (g.tag === 0x86) out.uri.push(g.value.toString('latin1'));
    else if (g.tag === 0x87) out.ip.push(ipText(g.value));
  }
}

function isCaOf(extnValue: Buffer): boolean {
  const [first] = children(expect(readTlv(extnValue), 0x30, 'basicConstraints').value);
  return first?.tag === 0x01 && first.value.length === 1 && first.value[0] !== 0;
}

export function readCsr(der: Buffer): CsrParts {
  const outer = expect(readTlv(der), 0x30, 'CSR');
  if (outer.raw.length !== der.length) throw new InvalidInput('malformed CSR: trailing data');
  const [info, algorithm, signature] = children(outer.value);
  const [version, subject, spki, attributes] = children(expect(info, 0x30, 'CSR info').value);
  expect(version, 0x02, 'CSR version');
  const sigOid = children(expect(algorithm, 0x30, 'signature algorithm').value)[0];
  const sigBits = expect(signature, 0x03, 'signature');
  const out: CsrParts = {
    tbs: info!.raw,
    signatureOid: expect(sigOid, 0x06, 'signature algorithm').raw,
    signature: sigBits.value.subarray(1),
    subjectDer: expect(subject, 0x30, 'subject').raw,
    subject: readName(subject!),
    spki: expect(spki, 0x30, 'public key').raw,
    sans: { dns: [], email: [], ip: [], uri: [] },
    isCa: false,
    extensions: [],
  };
  if (attributes) {
    for (const attr of children(expect(attributes, 0xa0, 'CSR attributes').value)) {
      const [type, values] = children(expect(attr, 0x30, 'CSR attribute').value);
      if (expect(type, 0x06, 'CSR attribute').raw.toString('hex') !== EXTENSION_REQUEST) continue;
      const exts = children(expect(values, 0x31, 'extension request').value)[0];
      for (const ext of children(expect(exts, 0x30, 'extension request').value)) {
        const parts = children(expect(ext, 0x30, 'extension').value);
        const id = expect(parts[0], 0x06, 'extension').raw.toString('hex');
        const value = expect(parts[parts.length - 1], 0x04, 'extension value').value;
        if (out.extensions.some((e) => e.id === id)) throw new InvalidInput('malformed CSR: an extension is requested twice');
        if (readTlv(value).raw.length !== value.length) throw new InvalidInput('malformed CSR: an extension value is not one DER element');
        out.extensions.push({ id, der: ext.raw });
        if (id === SUBJECT_ALT_NAME) sansOf(value, out.sans);
        else if (id === BASIC_CONSTRAINTS) out.isCa = isCaOf(value);
      }
    }
  }
  return out;
}
