/** Distinguished names for subjects: the attribute order and string types of the reference engine. */
import { InvalidInput } from '../../domain-errors';
import { oid, printable, seq, set, utf8 } from './asn1';
import { children, expectTlv, type Tlv } from './reader';

export interface Subject {
  commonName?: string;
  organization?: string[];
  ou?: string[];
  country?: string[];
  locality?: string[];
  province?: string[];
  streetAddress?: string[];
  postalCode?: string[];
  serialNumber?: string;
}

const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?]*$/;
const str = (v: string) => (PRINTABLE.test(v) ? printable(v) : utf8(v));

/** Subject attributes by OID, in the order the encoder writes them. */
export const SUBJECT_ATTRIBUTES: readonly (readonly [keyof Subject, string])[] = [
  ['country', '2.5.4.6'],
  ['province', '2.5.4.8'],
  ['locality', '2.5.4.7'],
  ['streetAddress', '2.5.4.9'],
  ['postalCode', '2.5.4.17'],
  ['organization', '2.5.4.10'],
  ['ou', '2.5.4.11'],
  ['commonName', '2.5.4.3'],
  ['serialNumber', '2.5.4.5'],
];

/** Adds one attribute value read from a Name: the first CN and serialNumber count, others accumulate. */
export function addAttribute(s: Subject, key: keyof Subject, value: string): void {
  if (key === 'commonName' || key === 'serialNumber') s[key] ??= value;
  else (s[key] ??= []).push(value);
}

/** The DER Name; one RDN per attribute type, several values of one type in one RDN. */
export function encodeName(s: Subject): Buffer {
  const rdns: Buffer[] = [];
  for (const [key, type] of SUBJECT_ATTRIBUTES) {
    const raw = s[key];
    const values = (Array.isArray(raw) ? raw : raw ? [raw] : []).filter((v) => v !== '');
    if (values.length) rdns.push(set(...values.map((v) => seq(oid(type), str(v)))));
  }
  return seq(...rdns);
}

const byOidDer = new Map(SUBJECT_ATTRIBUTES.map(([key, dotted]) => [oid(dotted).toString('hex'), key]));

/** A directory string as text: UTF8, Printable, IA5, Teletex (as Latin-1), BMP, Universal. */
function directoryString(t: Tlv): string {
  switch (t.tag) {
    case 0x0c:
      return t.value.toString('utf8');
    case 0x13:
    case 0x16:
    case 0x14:
    case 0x12:
    case 0x1a:
      return t.value.toString('latin1');
    case 0x1e: {
      if (t.value.length % 2) throw new InvalidInput('malformed BMPString');
      return Buffer.from(t.value).swap16().toString('utf16le');
    }
    case 0x1c: {
      if (t.value.length % 4) throw new InvalidInput('malformed UniversalString');
      const points: number[] = [];
      for (let i = 0; i < t.value.length; i += 4) points.push(t.value.readUInt32BE(i));
      try {
        return String.fromCodePoint(...points);
      } catch {
        throw new InvalidInput('malformed UniversalString');
      }
    }
    default:
      throw new InvalidInput(`unsupported string type 0x${t.tag.toString(16)} in the subject`);
  }
}

/** A DER Name read into the Subject fields (other attributes are skipped). */
export function readName(name: Tlv): Subject {
  const s: Subject = {};
  for (const rdn of children(name.value)) {
    for (const atv of children(expectTlv(rdn, 0x31, 'subject').value)) {
      const [type, value] = children(expectTlv(atv, 0x30, 'subject attribute').value);
      const key = byOidDer.get(expectTlv(type, 0x06, 'subject attribute').raw.toString('hex'));
      if (key && value) addAttribute(s, key, directoryString(value));
    }
  }
  return s;
}
