/**
 * OCSP (RFC 6960) on the wire: the request read straight off the DER with the bounds-checked
 * TLV reader (fixed depth, no recursion: hostile nesting is just a malformed request), and the
 * response written with the lean DER writer and signed by the issuer's signer.
 *
 *   OCSPRequest ::= SEQUENCE { tbsRequest, optionalSignature [0] EXPLICIT OPTIONAL }
 *   TBSRequest ::= SEQUENCE { version [0] EXPLICIT DEFAULT v1, requestorName [1] EXPLICIT OPTIONAL,
 *     requestList SEQUENCE OF Request, requestExtensions [2] EXPLICIT Extensions OPTIONAL }
 *   Request ::= SEQUENCE { reqCert CertID, singleRequestExtensions [0] EXPLICIT OPTIONAL }
 *   CertID ::= SEQUENCE { hashAlgorithm, issuerNameHash OCTET STRING, issuerKeyHash OCTET STRING, serialNumber INTEGER }
 */
import { InvalidInput } from '../../domain-errors';
import type { SignatureAlgorithm, Signer } from '../../keys/signer';
import { bits, explicit, implicit, implicitConstructed, octets, oid, seq, tlv } from './asn1';
import { children, expectTlv as expect, readTlv } from './reader';

/** The hash algorithms a CertID may name (RFC 6960 asks for SHA-1; the SHA-2 family too). */
export type CertIdHash = 'sha1' | 'sha256' | 'sha384' | 'sha512';
const HASH_OIDS: Record<string, CertIdHash> = {
  [oid('1.3.14.3.2.26').toString('hex')]: 'sha1',
  [oid('2.16.840.1.101.3.4.2.1').toString('hex')]: 'sha256',
  [oid('2.16.840.1.101.3.4.2.2').toString('hex')]: 'sha384',
  [oid('2.16.840.1.101.3.4.2.3').toString('hex')]: 'sha512',
};
export const NONCE_OID = '1.3.6.1.5.5.7.48.1.2';
const NONCE = oid(NONCE_OID).toString('hex');
const BASIC_RESPONSE = oid('1.3.6.1.5.5.7.48.1.1');

/** Requests larger than this are refused (a request for one certificate is about 100 bytes). */
export const MAX_REQUEST_BYTES = 4096;
/** Certificates asked about in one request, at most. */
export const MAX_SINGLE_REQUESTS = 16;

export interface CertId {
  /** The CertID as sent, echoed in the answer so the client matches it byte for byte. */
  raw: Buffer;
  /** Undefined for a hash algorithm not supported here (the answer is then `unknown`). */
  hash?: CertIdHash;
  nameHash: Buffer;
  keyHash: Buffer;
  /** INTEGER content bytes as sent. */
  serial: Buffer;
}

export interface OcspRequest {
  certs: CertId[];
  /** The nonce extension (RFC 8954) as sent, whole, to echo in the answer. */
  nonce?: Buffer;
}

function certId(t: ReturnType<typeof readTlv> | undefined): CertId {
  const c = expect(t, 0x30, 'OCSP request: CertID');
  const [alg, nameHash, keyHash, serial, extra] = children(c.value);
  if (extra) throw new InvalidInput('malformed OCSP request: CertID has extra fields');
  const algOid = expect(children(expect(alg, 0x30, 'OCSP request: hash algorithm').value)[0], 0x06, 'OCSP request: hash algorithm');
  const s = expect(serial, 0x02, 'OCSP request: serial number');
  if (s.value.length === 0 || s.value.length > 64) throw new InvalidInput('malformed OCSP request: serial number');
  const hash = HASH_OIDS[algOid.raw.toString('hex')];
  return {
    raw: c.raw,
    ...(hash ? { hash } : {}),
    nameHash: expect(nameHash, 0x04, 'OCSP request: issuer name hash').value,
    keyHash: expect(keyHash, 0x04, 'OCSP request: issuer key hash').value,
    serial: s.value,
  };
}

/** The nonce extension among the request's extensions, if any. */
function nonceOf(extensions: Buffer): Buffer | undefined {
  for (const e of children(expect(readTlv(extensions), 0x30, 'OCSP request: extensions').value)) {
    const parts = children(expect(e, 0x30, 'OCSP request: extension').value);
    const id = expect(parts[0], 0x06, 'OCSP request: extension id');
    expect(parts[parts.length - 1], 0x04, 'OCSP request: extension value');
    if (id.raw.toString('hex') === NONCE) return e.raw;
  }
  return undefined;
}

/** Reads an OCSPRequest; InvalidInput for anything malformed, too large or asking about nothing. */
export function readOcspRequest(der: Buffer): OcspRequest {
  if (der.length === 0) throw new InvalidInput('malformed OCSP request: empty');
  if (der.length > MAX_REQUEST_BYTES) throw new InvalidInput(`malformed OCSP request: larger than ${MAX_REQUEST_BYTES} bytes`);
  const outer = expect(readTlv(der), 0x30, 'OCSP request');
  if (outer.raw.length !== der.length) throw new InvalidInput('malformed OCSP request: trailing data');
  const [tbs, signature, extra] = children(outer.value);
  if (extra || (signature && signature.tag !== 0xa0)) throw new InvalidInput('malformed OCSP request: extra fields');
  const fields = children(expect(tbs, 0x30, 'OCSP request: TBSRequest').value);
  let i = 0;
  if (fields[i]?.tag === 0xa0) {
    const version = expect(readTlv(fields[i++]!.value), 0x02, 'OCSP request: version');
    if (version.value.length !== 1 || version.value[0] !== 0) throw new InvalidInput('malformed OCSP request: unsupported version');
  }
  if (fields[i]?.tag === 0xa1) i++;
  const list = children(expect(fields[i++], 0x30, 'OCSP request: request list').value);
  if (list.length === 0) throw new InvalidInput('malformed OCSP request: it asks about no certificate');
  if (list.length > MAX_SINGLE_REQUESTS) throw new InvalidInput(`malformed OCSP request: more than ${MAX_SINGLE_REQUESTS} certificates`);
  const certs = list.map((r) => {
    const [id, ext] = children(expect(r, 0x30, 'OCSP request: Request').value);
    if (ext && ext.tag !== 0xa0) throw new InvalidInput('malformed OCSP request: Request');
    return certId(id);
  });
  const rest = fields.slice(i);
  if (rest.some((f) => f.tag !== 0xa2) || rest.length > 1) throw new InvalidInput('malformed OCSP request: TBSRequest has extra fields');
  const nonce = rest[0] ? nonceOf(rest[0].value) : undefined;
  return { certs, ...(nonce ? { nonce } : {}) };
}

/** The OCSPResponseStatus values. */
export const OCSP_STATUS = { successful: 0, malformedRequest: 1, internalError: 2, tryLater: 3, sigRequired: 5, unauthorized: 6 } as const;
export type OcspStatusName = keyof typeof OCSP_STATUS;

/** An unsuccessful OCSPResponse: the status alone, no responseBytes (fixed bytes, nothing signed). */
export const errorResponse = (status: Exclude<OcspStatusName, 'successful'>): Buffer => seq(tlv(0x0a, Buffer.from([OCSP_STATUS[status]])));

export type CertStatus = { kind: 'good' } | { kind: 'unknown' } | { kind: 'revoked'; at: number; reason?: number };

export interface SingleResponse {
  certId: Buffer;
  status: CertStatus;
}

export interface ResponseParts {
  /** The responder's key hash: SHA-1 of its subjectPublicKey (ResponderID byKey). */
  responderKeyHash: Buffer;
  producedAt: number;
  /** nextUpdate = thisUpdate + this many seconds; 0: no nextUpdate. */
  validSeconds: number;
  responses: SingleResponse[];
  /** The request's nonce extension, echoed whole. */
  nonce?: Buffer;
}

const two = (n: number) => String(n).padStart(2, '0');

/** GeneralizedTime, whole seconds (RFC 6960 takes the RFC 5280 form). */
export function generalizedTime(ms: number): Buffer {
  const d = new Date(Math.floor(ms / 1000) * 1000);
  const text = `${String(d.getUTCFullYear()).padStart(4, '0')}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}Z`;
  return tlv(0x18, Buffer.from(text, 'latin1'));
}

function certStatus(s: CertStatus): Buffer {
  if (s.kind === 'good') return implicit(0, Buffer.alloc(0));
  if (s.kind === 'unknown') return implicit(2, Buffer.alloc(0));
  const reason = s.reason ? explicit(0, tlv(0x0a, Buffer.from([s.reason]))) : undefined;
  return implicitConstructed(1, Buffer.concat([generalizedTime(s.at), ...(reason ? [reason] : [])]));
}

/** The ResponseData to sign. */
export function responseData(p: ResponseParts): Buffer {
  const thisUpdate = generalizedTime(p.producedAt);
  const next = p.validSeconds > 0 ? explicit(0, generalizedTime(p.producedAt + p.validSeconds * 1000)) : undefined;
  return seq(
    explicit(2, octets(p.responderKeyHash)),
    generalizedTime(p.producedAt),
    seq(...p.responses.map((r) => seq(r.certId, certStatus(r.status), thisUpdate, next))),
    p.nonce ? explicit(1, seq(p.nonce)) : undefined,
  );
}

/** A successful OCSPResponse carrying a BasicOCSPResponse signed by `signer` (no certificates: the issuer signs it itself). */
export async function buildOcspResponse(p: ResponseParts, signer: Signer, alg: SignatureAlgorithm): Promise<Buffer> {
  const tbs = responseData(p);
  const basic = seq(tbs, alg.der, bits(await signer.sign(tbs, alg)));
  return seq(tlv(0x0a, Buffer.from([OCSP_STATUS.successful])), explicit(0, seq(BASIC_RESPONSE, octets(basic))));
}

/** The status of an OCSPResponse (for tests and tools). */
export function responseStatusOf(der: Buffer): number {
  const [status] = children(expect(readTlv(der), 0x30, 'OCSP response').value);
  return expect(status, 0x0a, 'OCSP response status').value[0] ?? -1;
}
