/**
 * Reading certificates and CSRs (with the lean readers in der/) into what the policy code
 * needs, importing their public keys, and checking signatures with node:crypto over the
 * original bytes.
 */
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { CURVES } from '../keys/curves';
import { describeKey } from '../keys/signer-local';
import type { KeyType } from '../keys/signer';
import { bits, nul, oid, seq, uint } from './der/asn1';
import { readCert, type CertParts } from './der/cert-reader';
import { readCsr, type CsrNames } from './der/csr-reader';
import { children, readTlv, signedParts } from './der/reader';
import type { Subject } from './der/name';

export interface NameSet extends CsrNames {
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
  /** The CSR's requested extensions, as sent (der/csr-reader.ts). */
  extensions: { id: string; der: Buffer }[];
}

/** A certificate's parts (der/cert-reader.ts) with its key imported and the DER it came from. */
export interface ParsedCert extends ParsedKey, Omit<CertParts, 'spki' | 'signatureOid'> {
  der: Buffer;
}

export function keyOf(spki: Buffer): ParsedKey {
  let imported: { key: KeyObject; spki: Buffer };
  try {
    imported = importSpki(spki);
  } catch (e) {
    throw new InvalidInput('unsupported or malformed public key', { cause: e });
  }
  const d = describeKey(imported.key);
  if (!d) throw new InvalidInput('unsupported public key type');
  return { keyType: d.keyType, keyBits: d.keyBits, spki: imported.spki, publicKey: imported.key };
}

/** Curves node:crypto imports as JWK, by the DER of their OID. */
const JWK_CURVES = new Map(CURVES.flatMap((c) => (c.jwk ? [[oid(c.oid).toString('hex'), { crv: c.jwk, size: c.size }] as const] : [])));
const EC_PUBLIC_KEY = oid('1.2.840.10045.2.1');
const RSA_ENCRYPTION = oid('1.2.840.113549.1.1.1');
const ED25519 = oid('1.3.101.112');

/**
 * A SubjectPublicKeyInfo as a KeyObject and in canonical DER. The common shapes (EC on a named
 * curve with an uncompressed point, RSA, Ed25519) are read here and imported as JWK: OpenSSL's
 * DER decoder is much slower (figures in BENCHMARKS.md). Anything else goes through the decoder.
 */
function importSpki(spki: Buffer): { key: KeyObject; spki: Buffer } {
  const jwk = jwkOf(spki);
  if (!jwk) {
    const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
    return { key, spki: key.export({ format: 'der', type: 'spki' }) };
  }
  return { key: createPublicKey({ key: jwk.jwk, format: 'jwk' }), spki: jwk.canonical };
}

function jwkOf(spki: Buffer): { jwk: JsonWebKey; canonical: Buffer } | undefined {
  const [alg, bitString] = children(readTlv(spki).value);
  if (alg?.tag !== 0x30 || bitString?.tag !== 0x03 || bitString.value[0] !== 0) return undefined;
  const [id, params, ...rest] = children(alg.value);
  const key = bitString.value.subarray(1);
  if (!id || rest.length) return undefined;
  const b64 = (b: Buffer) => b.toString('base64url');
  if (id.raw.equals(EC_PUBLIC_KEY)) {
    const curve = params && JWK_CURVES.get(params.raw.toString('hex'));
    if (!curve || key.length !== 1 + 2 * curve.size || key[0] !== 4) return undefined;
    return {
      jwk: { kty: 'EC', crv: curve.crv, x: b64(key.subarray(1, 1 + curve.size)), y: b64(key.subarray(1 + curve.size)) },
      canonical: seq(seq(EC_PUBLIC_KEY, params.raw), bits(key)),
    };
  }
  if (id.raw.equals(RSA_ENCRYPTION)) {
    if (params?.tag !== 0x05 || params.value.length) return undefined;
    const [n, e, ...more] = children(readTlv(key).value);
    if (n?.tag !== 0x02 || e?.tag !== 0x02 || more.length || (n.value[0] ?? 0) & 0x80 || (e.value[0] ?? 0) & 0x80) return undefined;
    const strip = (b: Buffer) => b.subarray(b.findIndex((x) => x !== 0));
    const [nn, ee] = [strip(n.value), strip(e.value)];
    if (!nn.length || !ee.length) return undefined;
    return { jwk: { kty: 'RSA', n: b64(nn), e: b64(ee) }, canonical: seq(seq(RSA_ENCRYPTION, nul()), bits(seq(uint(nn), uint(ee)))) };
  }
  if (id.raw.equals(ED25519)) {
    if (params || key.length !== 32) return undefined;
    return { jwk: { kty: 'OKP', crv: 'Ed25519', x: b64(key) }, canonical: seq(seq(ED25519), bits(key)) };
  }
  return undefined;
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

const HASH_BY_OID = new Map(Object.entries(HASHES).map(([dotted, hash]) => [oid(dotted).toString('hex'), hash]));

function verifies(hash: string | null, tbs: Buffer, key: KeyObject, signature: Buffer): boolean {
  try {
    return verify(hash, tbs, key, signature);
  } catch {
    return false;
  }
}

/** Whether `der` (certificate, CSR or CRL) is signed by `key`, with an algorithm the service accepts. */
export function signatureValid(der: Buffer, signatureOid: string, key: KeyObject): boolean {
  const hash = HASHES[signatureOid];
  if (hash === undefined) return false;
  const { tbs, signature } = signedParts(der);
  return verifies(hash, tbs, key, signature);
}

/** Parses, or throws a 400 naming `what`. */
function guarded<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof InvalidInput) throw new InvalidInput(`${what}: ${e.message}`);
    throw new InvalidInput(`${what} could not be parsed`, { cause: e });
  }
}

export function parseCsr(der: Buffer): ParsedCsr {
  return guarded('the CSR', () => {
    const csr = readCsr(der);
    const key = keyOf(csr.spki);
    const hash = HASH_BY_OID.get(csr.signatureOid.toString('hex'));
    if (hash === undefined || !verifies(hash, csr.tbs, key.publicKey, csr.signature))
      throw new InvalidInput('the signature does not verify');
    return {
      keyType: key.keyType,
      keyBits: key.keyBits,
      spki: key.spki,
      publicKey: key.publicKey,
      subject: csr.subject,
      subjectDer: csr.subjectDer,
      sans: { ...csr.sans, other: [] },
      isCa: csr.isCa,
      extensions: csr.extensions,
    };
  });
}

export function parseCertificate(der: Buffer): ParsedCert {
  return guarded('the certificate', () => {
    const c = readCert(der);
    const key = keyOf(c.spki);
    return {
      keyType: key.keyType,
      keyBits: key.keyBits,
      spki: key.spki,
      publicKey: key.publicKey,
      der,
      serial: c.serial,
      subject: c.subject,
      subjectDer: c.subjectDer,
      issuerDer: c.issuerDer,
      notBefore: c.notBefore,
      notAfter: c.notAfter,
      isCa: c.isCa,
      ...(c.pathLen !== undefined ? { pathLen: c.pathLen } : {}),
      ...(c.subjectKeyId ? { subjectKeyId: c.subjectKeyId } : {}),
      ...(c.authorityKeyId ? { authorityKeyId: c.authorityKeyId } : {}),
    };
  });
}
