/** An OCSP request (RFC 6960) as a client builds one, for the benchmarks that send them. */
import { createHash, randomBytes } from 'node:crypto';
import { explicit, nul, octets, oid, seq, uint } from '../lib/pki/der/asn1';
import { readCert } from '../lib/pki/der/cert-reader';
import { NONCE_OID } from '../lib/pki/der/ocsp';
import { children, readTlv } from '../lib/pki/der/reader';
import { pemBlocks } from '../lib/pki/pem';

/** A request for `serial` under the CA `caPem`, SHA-1 CertID, with a fresh nonce or none. */
export function ocspRequest(caPem: string, serial: Buffer, nonce: boolean): Buffer {
  const cert = readCert(pemBlocks(caPem)[0]!.der);
  const keyBits = children(readTlv(cert.spki).value)[1]!.value.subarray(1);
  const h = (b: Buffer) => createHash('sha1').update(b).digest();
  const id = seq(seq(oid('1.3.14.3.2.26'), nul()), octets(h(cert.subjectDer)), octets(h(keyBits)), uint(serial));
  const ext = nonce ? explicit(2, seq(seq(oid(NONCE_OID), octets(octets(randomBytes(16)))))) : undefined;
  return seq(seq(seq(seq(id)), ext));
}
