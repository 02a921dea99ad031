/**
 * A lean X.509 reader: the parts of a certificate the engine uses (CA certificates it loads,
 * chains and certificates it is given), read straight off the DER with the bounds-checked TLV
 * reader, so the Lambda needs no ASN.1 schema library. Anything malformed is an InvalidInput.
 *
 *   Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }
 *   TBSCertificate ::= SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer,
 *     validity, subject, subjectPublicKeyInfo, [1] [2] unique ids OPTIONAL, [3] extensions OPTIONAL }
 */
import { InvalidInput } from '../../domain-errors';
import { oid } from './asn1';
import { readName, type Subject } from './name';
import { children, expectTlv as expect, readTlv, type Tlv } from './reader';

export interface CertParts {
  /** Serial number content bytes, as encoded (a leading zero byte kept). */
  serial: Buffer;
  subject: Subject;
  subjectDer: Buffer;
  issuerDer: Buffer;
  notBefore: number;
  notAfter: number;
  spki: Buffer;
  /** The signature algorithm's OID as its DER TLV. */
  signatureOid: Buffer;
  isCa: boolean;
  pathLen?: number;
  subjectKeyId?: Buffer;
  /** The authorityKeyIdentifier's keyIdentifier, when present. */
  authorityKeyId?: Buffer;
  /** Whether the keyUsage extension allows cRLSign; absent without a keyUsage extension. */
  crlSign?: boolean;
}

const BASIC_CONSTRAINTS = oid('2.5.29.19').toString('hex');
const SUBJECT_KEY_ID = oid('2.5.29.14').toString('hex');
const AUTHORITY_KEY_ID = oid('2.5.29.35').toString('hex');
const KEY_USAGE = oid('2.5.29.15').toString('hex');

/** keyUsage's cRLSign bit (bit 6: the second byte's 0x02 in DER's first content byte after the unused-bits count). */
function allowsCrlSign(value: Buffer): boolean {
  const bits = expect(readTlv(value), 0x03, 'keyUsage').value;
  return ((bits[1] ?? 0) & 0x02) !== 0;
}

const TIME = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:\.\d+)?Z$/;

/** UTCTime (years 1950–2049) or GeneralizedTime, in milliseconds. */
function timeOf(t: Tlv | undefined): number {
  if (!t || (t.tag !== 0x17 && t.tag !== 0x18)) throw new InvalidInput('malformed validity');
  const m = TIME.exec(t.value.toString('latin1'));
  if (!m || (t.tag === 0x17) !== (m[1]!.length === 2)) throw new InvalidInput('malformed validity time');
  let year = Number(m[1]);
  if (t.tag === 0x17) year += year < 50 ? 2000 : 1900;
  const ms = Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6] ?? 0));
  if (Number.isNaN(ms)) throw new InvalidInput('malformed validity time');
  return ms;
}

function basicConstraints(value: Buffer): { isCa: boolean; pathLen?: number } {
  const items = children(expect(readTlv(value), 0x30, 'basicConstraints').value);
  let i = 0;
  let isCa = false;
  if (items[i]?.tag === 0x01) isCa = (items[i++]!.value[0] ?? 0) !== 0;
  const len = items[i];
  if (!isCa || len?.tag !== 0x02) return { isCa };
  if (len.value.length > 4 || (len.value[0] ?? 0) & 0x80) throw new InvalidInput('malformed basicConstraints path length');
  return { isCa, pathLen: len.value.reduce((n, b) => n * 256 + b, 0) };
}

export function readCert(der: Buffer): CertParts {
  const outer = expect(readTlv(der), 0x30, 'certificate');
  if (outer.raw.length !== der.length) throw new InvalidInput('malformed certificate: trailing data');
  const [tbs, algorithm, signature] = children(outer.value);
  expect(signature, 0x03, 'signature');
  const fields = children(expect(tbs, 0x30, 'TBSCertificate').value);
  let i = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serial = expect(fields[i++], 0x02, 'serial number');
  expect(fields[i++], 0x30, 'signature algorithm');
  const issuer = expect(fields[i++], 0x30, 'issuer');
  const [notBefore, notAfter] = children(expect(fields[i++], 0x30, 'validity').value);
  const subject = expect(fields[i++], 0x30, 'subject');
  const spki = expect(fields[i++], 0x30, 'public key');
  const out: CertParts = {
    serial: serial.value,
    subject: readName(subject),
    subjectDer: subject.raw,
    issuerDer: issuer.raw,
    notBefore: timeOf(notBefore),
    notAfter: timeOf(notAfter),
    spki: spki.raw,
    signatureOid: expect(children(expect(algorithm, 0x30, 'signature algorithm').value)[0], 0x06, 'signature algorithm').raw,
    isCa: false,
  };
  const extensions = fields.slice(i).find((f) => f.tag === 0xa3);
  if (extensions) {
    for (const ext of children(expect(readTlv(extensions.value), 0x30, 'extensions').value)) {
      const parts = children(expect(ext, 0x30, 'extension').value);
      const id = expect(parts[0], 0x06, 'extension').raw.toString('hex');
      const value = expect(parts[parts.length - 1], 0x04, 'extension value').value;
      if (id === BASIC_CONSTRAINTS) Object.assign(out, basicConstraints(value));
      else if (id === KEY_USAGE) out.crlSign = allowsCrlSign(value);
      else if (id === SUBJECT_KEY_ID) out.subjectKeyId = expect(readTlv(value), 0x04, 'subjectKeyIdentifier').value;
      else if (id === AUTHORITY_KEY_ID) {
        const keyId = children(expect(readTlv(value), 0x30, 'authorityKeyIdentifier').value).find((c) => c.tag === 0x80);
        if (keyId) out.authorityKeyId = keyId.value;
      }
    }
  }
  return out;
}
