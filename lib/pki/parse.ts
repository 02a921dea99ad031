/**
 * Reading certificates and CSRs (with @peculiar's ASN.1 schemas) into what the policy code
 * needs, and checking their signatures with node:crypto over the original bytes.
 */
import { AsnConvert } from '@peculiar/asn1-schema';
import { CertificationRequest } from '@peculiar/asn1-csr';
import { BasicConstraints, Certificate, Extensions, SubjectAlternativeName, type Extension, type Name } from '@peculiar/asn1-x509';
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { BadRequest } from '../errors';
import { describeKey } from '../keys/signer-local';
import type { KeyType } from '../keys/signer';
import { signedParts } from './der/reader';
import type { Subject } from './der/name';

export interface NameSet {
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
  other: { oid: string; value: string }[];
}

export interface ParsedKey {
  keyType: KeyType;
  keyBits: number;
  spki: Buffer;
  publicKey: KeyObject;
}

export interface ParsedCsr extends ParsedKey {
  subject: Subject;
  subjectDer: Buffer;
  sans: NameSet;
  isCa: boolean;
  extensions: Extension[];
}

export interface ParsedCert extends ParsedKey {
  der: Buffer;
  serial: Buffer;
  subject: Subject;
  subjectDer: Buffer;
  issuerDer: Buffer;
  notBefore: number;
  notAfter: number;
  isCa: boolean;
  pathLen?: number;
  subjectKeyId?: Buffer;
  extensions: Extension[];
}

const ATTRS: Record<string, keyof Subject> = {
  '2.5.4.3': 'commonName',
  '2.5.4.10': 'organization',
  '2.5.4.11': 'ou',
  '2.5.4.6': 'country',
  '2.5.4.7': 'locality',
  '2.5.4.8': 'province',
  '2.5.4.9': 'streetAddress',
  '2.5.4.17': 'postalCode',
  '2.5.4.5': 'serialNumber',
};

function subjectOf(name: Name): Subject {
  const s: Record<string, string | string[]> = {};
  for (const rdn of name) {
    for (const atv of rdn) {
      const key = ATTRS[atv.type];
      if (!key) continue;
      const v = atv.value.toString();
      if (key === 'commonName' || key === 'serialNumber') s[key] ??= v;
      else s[key] = [...((s[key] as string[] | undefined) ?? []), v];
    }
  }
  return s as Subject;
}

export function sansOf(extensions: Extension[]): NameSet {
  const out: NameSet = { dns: [], email: [], ip: [], uri: [], other: [] };
  const san = extensions.find((e) => e.extnID === '2.5.29.17');
  if (!san) return out;
  for (const g of AsnConvert.parse(san.extnValue.buffer, SubjectAlternativeName)) {
    if (g.dNSName !== undefined) out.dns.push(g.dNSName);
    else if (g.rfc822Name !== undefined) out.email.push(g.rfc822Name);
    else if (g.iPAddress !== undefined) out.ip.push(g.iPAddress);
    else if (g.uniformResourceIdentifier !== undefined) out.uri.push(g.uniformResourceIdentifier);
  }
  return out;
}

function basicConstraintsOf(extensions: Extension[]): { isCa: boolean; pathLen?: number } {
  const bc = extensions.find((e) => e.extnID === '2.5.29.19');
  if (!bc) return { isCa: false };
  const v = AsnConvert.parse(bc.extnValue.buffer, BasicConstraints);
  return { isCa: v.cA, ...(v.cA && v.pathLenConstraint !== undefined ? { pathLen: v.pathLenConstraint } : {}) };
}

export function keyOf(spki: Buffer): ParsedKey {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch (e) {
    throw new BadRequest('unsupported or malformed public key', { cause: e });
  }
  const d = describeKey(publicKey);
  if (!d) throw new BadRequest('unsupported public key type');
  return { keyType: d.keyType, keyBits: d.keyBits, spki, publicKey };
}

const HASHES: Record<string, string | null> = {
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** Whether `der` (certificate, CSR or CRL) is signed by `key`, with an algorithm the service accepts. */
export function signatureValid(der: Buffer, signatureOid: string, key: KeyObject): boolean {
  const hash = HASHES[signatureOid];
  if (hash === undefined) return false;
  const { tbs, signature } = signedParts(der);
  try {
    return verify(hash, tbs, key, signature);
  } catch {
    return false;
  }
}

/** Parses, or throws a 400 naming `what`. */
function guarded<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof BadRequest) throw new BadRequest(`${what}: ${e.messages.join('; ')}`);
    throw new BadRequest(`${what} could not be parsed`, { cause: e });
  }
}

export function parseCsr(der: Buffer): ParsedCsr {
  return guarded('the CSR', () => {
    const csr = AsnConvert.parse(der, CertificationRequest);
    const info = csr.certificationRequestInfo;
    const spki = Buffer.from(AsnConvert.serialize(info.subjectPKInfo));
    const key = keyOf(spki);
    if (!signatureValid(der, csr.signatureAlgorithm.algorithm, key.publicKey)) throw new BadRequest('the signature does not verify');
    const extReq = info.attributes.find((a) => a.type === '1.2.840.113549.1.9.14');
    const extensions = extReq?.values[0] ? [...AsnConvert.parse(extReq.values[0], Extensions)] : [];
    return {
      keyType: key.keyType,
      keyBits: key.keyBits,
      spki: key.spki,
      publicKey: key.publicKey,
      subject: subjectOf(info.subject),
      subjectDer: Buffer.from(AsnConvert.serialize(info.subject)),
      sans: sansOf(extensions),
      isCa: basicConstraintsOf(extensions).isCa,
      extensions,
    };
  });
}

export function parseCertificate(der: Buffer): ParsedCert {
  return guarded('the certificate', () => {
    const cert = AsnConvert.parse(der, Certificate);
    const tbs = cert.tbsCertificate;
    const extensions = [...(tbs.extensions ?? [])];
    const ski = extensions.find((e) => e.extnID === '2.5.29.14');
    return {
      ...keyOf(Buffer.from(AsnConvert.serialize(tbs.subjectPublicKeyInfo))),
      der,
      serial: Buffer.from(tbs.serialNumber),
      subject: subjectOf(tbs.subject),
      subjectDer: Buffer.from(AsnConvert.serialize(tbs.subject)),
      issuerDer: Buffer.from(AsnConvert.serialize(tbs.issuer)),
      notBefore: tbs.validity.notBefore.getTime().getTime(),
      notAfter: tbs.validity.notAfter.getTime().getTime(),
      ...basicConstraintsOf(extensions),
      ...(ski ? { subjectKeyId: Buffer.from(ski.extnValue.buffer).subarray(2) } : {}),
      extensions,
    };
  });
}

export function certificateSignatureOid(der: Buffer): string {
  return AsnConvert.parse(der, Certificate).signatureAlgorithm.algorithm;
}
