/**
 * The lean certificate builder: a TBSCertificate assembled from pre-encoded parts and signed
 * through the CA's signer. No object model in between, so a leaf costs little beyond the
 * signature itself.
 */
import type { SignatureAlgorithm, Signer } from '../../keys/signer';
import { bits, explicit, int, seq, time, uint } from './asn1';

export interface CertificateParts {
  /** Serial number magnitude, big-endian. */
  serial: Buffer;
  /** DER Names. */
  issuer: Buffer;
  subject: Buffer;
  notBefore: number;
  notAfter: number;
  /** SubjectPublicKeyInfo DER. */
  spki: Buffer;
  /** Encoded Extension items (undefined entries are skipped). */
  extensions: (Buffer | undefined)[];
}

export function tbsCertificate(p: CertificateParts, alg: SignatureAlgorithm): Buffer {
  const exts = p.extensions.filter((e): e is Buffer => e !== undefined);
  return seq(
    explicit(0, int(2)),
    uint(p.serial),
    alg.der,
    p.issuer,
    seq(time(p.notBefore), time(p.notAfter)),
    p.subject,
    p.spki,
    exts.length ? explicit(3, seq(...exts)) : undefined,
  );
}

/** Signs a TBS structure (certificate or CRL): SEQUENCE { tbs, algorithm, signature }. */
export async function signed(tbs: Buffer, signer: Signer, alg: SignatureAlgorithm): Promise<Buffer> {
  const signature = await signer.sign(tbs, alg);
  return seq(tbs, alg.der, bits(signature));
}

export async function buildCertificate(p: CertificateParts, signer: Signer, alg: SignatureAlgorithm): Promise<Buffer> {
  return signed(tbsCertificate(p, alg), signer, alg);
}
