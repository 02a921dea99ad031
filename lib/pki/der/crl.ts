/**
 * The X.509 v2 CRL (RFC 5280 section 5), built directly and signed by the issuer's signer: a
 * complete CRL (with a Freshest CRL extension naming where its deltas are, when given) or a
 * delta CRL (with the critical Delta CRL Indicator naming its base's CRL number, 5.2.4).
 */
import type { SignatureAlgorithm, Signer } from '../../keys/signer';
import { explicit, int, seq, time, tlv, uint } from './asn1';
import { authorityKeyId, ext, freshestCrl } from './extensions';
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
  /** The entries, or (`revokedDer`) already encoded: any number of concatenated entries per buffer (a page of the index each). */
  revoked: RevokedEntry[] | { revokedDer: Buffer[] };
  /** A delta CRL: the CRL number of the complete CRL it is based on (Delta CRL Indicator, critical). */
  deltaBase?: number;
  /** A complete CRL: the delta CRL distribution points (Freshest CRL extension, 5.2.6). */
  freshest?: string[];
}

export async function buildCrl(p: CrlParts, signer: Signer, alg: SignatureAlgorithm): Promise<Buffer> {
  const entries = Array.isArray(p.revoked) ? Buffer.concat(p.revoked.map(encodeRevoked)) : Buffer.concat(p.revoked.revokedDer);
  const tbs = seq(
    int(1),
    alg.der,
    p.issuer,
    time(p.thisUpdate),
    time(p.nextUpdate),
    entries.length ? seq(entries) : undefined,
    explicit(
      0,
      seq(
        authorityKeyId(p.issuerKeyId),
        ext('2.5.29.20', false, int(p.number)),
        p.deltaBase !== undefined ? ext('2.5.29.27', true, int(p.deltaBase)) : undefined,
        p.deltaBase === undefined && p.freshest?.length ? freshestCrl(p.freshest) : undefined,
      ),
    ),
  );
  return signed(tbs, signer, alg);
}

/** One revokedCertificates entry: serial, revocation date, a reasonCode entry extension when a reason is given. */
const reasons = new Map<number, Buffer>();
export function encodeRevoked(r: RevokedEntry): Buffer {
  let reason: Buffer | undefined;
  if (r.reason) {
    reason = reasons.get(r.reason);
    if (!reason) reasons.set(r.reason, (reason = seq(ext('2.5.29.21', false, tlv(0x0a, Buffer.from([r.reason]))))));
  }
  return seq(uint(r.serial), time(r.revokedAt), reason);
}
