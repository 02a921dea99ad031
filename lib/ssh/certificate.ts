/**
 * OpenSSH certificates (PROTOCOL.certkeys), encoded here and signed with node:crypto: sshpk
 * signs RSA certificates with SHA-1 only and signs Ed25519 in pure JavaScript.
 */
import { randomFillSync, type KeyObject } from 'node:crypto';
import type { UserKey } from './public-key';
import { signatureBlob, type RsaSigner } from './ssh-key';
import { options, str, u32, u64, WireReader } from './wire';

export interface CertTemplate {
  key: UserKey;
  serial: bigint;
  certType: 'user' | 'host';
  keyId: string;
  principals: string[];
  validAfter: bigint;
  validBefore: bigint;
  criticalOptions: Record<string, string>;
  extensions: Record<string, string>;
}

export interface CaSigner {
  key: KeyObject;
  /** The CA public key blob (the certificate's signature key). */
  blob: Buffer;
}

/**
 * Nonces and serials come from a pooled CSPRNG buffer (as node's randomUUID does): one
 * randomFillSync per 256 certificates instead of two randomBytes calls each, which cost about
 * as much as an Ed25519 signature.
 */
const pool = Buffer.alloc(40 * 256);
let poolAt = pool.length;

function random(n: number): Buffer {
  if (poolAt + n > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const out = Buffer.from(pool.subarray(poolAt, poolAt + n));
  poolAt += n;
  return out;
}

export function randomSerial(): bigint {
  return random(8).readBigUInt64BE();
}

/** Encodes and signs the certificate; returns its one-line OpenSSH form (newline-terminated). */
export function signCertificate(t: CertTemplate, ca: CaSigner, rsaSigner: RsaSigner): string {
  const name = `${t.key.type}-cert-v01@openssh.com`;
  const keyFields = (() => {
    const r = new WireReader(t.key.blob);
    r.string();
    return r.rest();
  })();
  const body = Buffer.concat([
    str(name),
    str(random(32)),
    keyFields,
    u64(t.serial),
    u32(t.certType === 'user' ? 1 : 2),
    str(t.keyId),
    str(Buffer.concat(t.principals.map((p) => str(p)))),
    u64(t.validAfter),
    u64(t.validBefore),
    str(options(t.criticalOptions)),
    str(options(t.extensions)),
    str(''),
    str(ca.blob),
  ]);
  const cert = Buffer.concat([body, str(signatureBlob(ca.key, body, rsaSigner))]);
  return `${name} ${cert.toString('base64')}\n`;
}
