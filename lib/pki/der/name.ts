/** Distinguished names for subjects: the attribute order and string types of the reference engine. */
import { oid, printable, seq, set, utf8 } from './asn1';

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

const byOid = new Map(SUBJECT_ATTRIBUTES.map(([key, type]) => [type, key]));

/** The Subject field an attribute OID fills, if any. */
export const subjectKeyOf = (dotted: string): keyof Subject | undefined => byOid.get(dotted);

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
