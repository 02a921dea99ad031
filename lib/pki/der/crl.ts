/** The X.509 v2 CRL (RFC 5280 section 5), built directly and signed by the issuer's signer. */
import type { SignatureAlgorithm, Signer } from '../../keys/signer';
import { explicit, int, seq, time, tlv, uint } from './asn1';
import { authorityKeyId, ext } from './extensions';
import { signed } from './certificate';

export interface RevokedEntry {
  serial: Buffer;
  /** Milliseconds since the epoch. */
  revokedAt: number;
  /** RFC 5280 CRLReason (1-10); absent or 0 (unspecified): no reasonCode entry extension, as RFC 5280 asks. */
  reason?: number;
}

export interface CrlParts {
  issuer: Buffer;
  issuerKeyId: Buffer;
  thisUpdate: number;
  nextUpdate: number;
  number: number;
  revoked: RevokedEntry[];
}

export async function buildCrl(p: CrlParts, signer: Signer, alg: SignatureAlgorithm): Promise<Buffer> {
  const entries = p.revoked.map((r) =>
    seq(uint(r.serial), time(r.revokedAt), r.reason ? seq(ext('2.5.29.21', false, tlv(0x0a, Buffer.from([r.reason])))) : undefined),
  );
  const tbs = seq(
    int(1),
    alg.der,
    p.issuer,
    time(p.thisUpdate),
    time(p.nextUpdate),
    entries.length ? seq(...entries) : undefined,
    explicit(0, seq(authorityKeyId(p.issuerKeyId), ext('2.5.29.20', false, int(p.number)))),
  );
  return signed(tbs, signer, alg);
}
