/**
 * Reading an OpenSSH certificate (PROTOCOL.certkeys) submitted for revocation: its serial, key
 * id, principals, validity and signature key, and whether a given CA key signed it. Hostile
 * input (garbage, truncated, trailing bytes, huge) is refused as InvalidInput.
 */
import { verify, type KeyObject } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { WireReader } from './wire';

/** The key fields after the nonce, per certified key type: how many strings each has. */
const KEY_FIELDS: Record<string, number> = {
  'ssh-rsa-cert-v01@openssh.com': 2,
  'ssh-ed25519-cert-v01@openssh.com': 1,
  'ecdsa-sha2-nistp256-cert-v01@openssh.com': 2,
  'ecdsa-sha2-nistp384-cert-v01@openssh.com': 2,
  'ecdsa-sha2-nistp521-cert-v01@openssh.com': 2,
};
const EC_SIZES: Record<string, { hash: string; size: number }> = {
  'ecdsa-sha2-nistp256': { hash: 'sha256', size: 32 },
  'ecdsa-sha2-nistp384': { hash: 'sha384', size: 48 },
  'ecdsa-sha2-nistp521': { hash: 'sha512', size: 66 },
};
const RSA_HASHES: Record<string, string> = { 'ssh-rsa': 'sha1', 'rsa-sha2-256': 'sha256', 'rsa-sha2-512': 'sha512' };
export const MAX_CERTIFICATE_CHARS = 65_536;

export interface ParsedCert {
  serial: bigint;
  certType: 'user' | 'host';
  keyId: string;
  principals: string[];
  validAfter: bigint;
  validBefore: bigint;
  /** The signing CA's public key blob. */
  caKey: Buffer;
  /** The signed bytes and the signature blob. */
  body: Buffer;
  signature: Buffer;
}

const u64At = (b: Buffer): bigint => {
  if (b.length !== 8) throw new Error('truncated SSH data');
  return b.readBigUInt64BE();
};

/** The certificate's bytes from `type base64 [comment]` or bare base64. */
function certBytes(text: string): Buffer {
  const t = text.trim();
  if (!t) throw new InvalidInput('missing certificate');
  if (t.length > MAX_CERTIFICATE_CHARS) throw new InvalidInput(`certificate is too long (${MAX_CERTIFICATE_CHARS} characters at most)`);
  const words = t.split(/\s+/);
  const b64 = words.length > 1 ? words[1]! : words[0]!;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new InvalidInput('certificate is not an OpenSSH certificate (expected "<type> <base64>")');
  return Buffer.from(b64, 'base64');
}

/** Parses an OpenSSH certificate line; InvalidInput naming what is wrong. */
export function parseCertificate(text: string): ParsedCert {
  const bytes = certBytes(text);
  try {
    const r = new WireReader(bytes);
    const type = r.string().toString('latin1');
    const fields = KEY_FIELDS[type];
    if (fields === undefined)
      throw new InvalidInput(`certificate type ${JSON.stringify(type.slice(0, 64))} is not an OpenSSH certificate type`);
    r.string(); // nonce
    for (let i = 0; i < fields; i++) r.string();
    const serial = u64At(r.fixed(8));
    const kind = r.fixed(4).readUInt32BE();
    if (kind !== 1 && kind !== 2) throw new InvalidInput('certificate type must be user (1) or host (2)');
    const keyId = r.string().toString('utf8');
    const principals = strings(r.string()).map((p) => p.toString('utf8'));
    const validAfter = u64At(r.fixed(8));
    const validBefore = u64At(r.fixed(8));
    r.string(); // critical options
    r.string(); // extensions
    r.string(); // reserved
    const caKey = Buffer.from(r.string());
    const body = bytes.subarray(0, bytes.length - r.rest().length);
    const signature = Buffer.from(r.string());
    if (r.rest().length > 0) throw new InvalidInput('certificate has trailing data');
    return { serial, certType: kind === 1 ? 'user' : 'host', keyId, principals, validAfter, validBefore, caKey, body, signature };
  } catch (e) {
    if (e instanceof InvalidInput) throw e;
    throw new InvalidInput('certificate is truncated or malformed', { cause: e });
  }
}

function strings(b: Buffer): Buffer[] {
  const r = new WireReader(b);
  const out: Buffer[] = [];
  while (r.rest().length > 0) out.push(r.string());
  return out;
}

/** Whether `caKey` (the CA's key, private or public) made the certificate's signature. */
export function signedBy(cert: ParsedCert, caKey: KeyObject): boolean {
  try {
    const r = new WireReader(cert.signature);
    const alg = r.string().toString('latin1');
    const sig = r.string();
    if (alg === 'ssh-ed25519') return verify(null, cert.body, caKey, sig);
    const rsaHash = RSA_HASHES[alg];
    if (rsaHash) return verify(rsaHash, cert.body, caKey, sig);
    const ec = EC_SIZES[alg];
    if (!ec) return false;
    const rs = new WireReader(sig);
    const fixed = (m: Buffer) => {
      const v = m.subarray(m.findIndex((x) => x !== 0) < 0 ? m.length : m.findIndex((x) => x !== 0));
      if (v.length > ec.size) throw new Error('oversized ECDSA signature value');
      return Buffer.concat([Buffer.alloc(ec.size - v.length), v]);
    };
    const p1363 = Buffer.concat([fixed(rs.string()), fixed(rs.string())]);
    return verify(ec.hash, cert.body, { key: caKey, dsaEncoding: 'ieee-p1363' }, p1363);
  } catch {
    return false;
  }
}
