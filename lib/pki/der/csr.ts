/** PKCS#10 certification requests (intermediate/generate), signed with the new key. */
import type { SignatureAlgorithm, Signer } from '../../keys/signer';
import { explicit, int, oid, seq, set } from './asn1';
import { signed } from './certificate';

export async function buildCsr(subject: Buffer, signer: Signer, alg: SignatureAlgorithm, extensions: Buffer[]): Promise<Buffer> {
  const attrs = extensions.length ? seq(oid('1.2.840.113549.1.9.14'), set(seq(...extensions))) : Buffer.alloc(0);
  // attributes [0] IMPLICIT SET OF Attribute
  const info = seq(int(0), subject, signer.spki, explicit(0, attrs));
  return signed(info, signer, alg);
}
