/**
 * revokeCert (RFC 8555 section 7.6): signed by the account that ordered the certificate, or by
 * the certificate's own key (a `jwk` request). Revocation is the engine's (revoke.ts): the CRL
 * is rebuilt, its entry carrying the reason code given (none for 0, unspecified).
 */
import { InvalidInput } from '../../domain-errors';
import { pkiRepository } from '../issuer';
import { parseCertificate, type ParsedCert } from '../parse';
import { revokeSerial } from '../revoke';
import { serialKey } from '../serial';
import type { AcmeAnswer } from './answer';
import { accountKeyOf, thumbprint } from './jws';
import { AcmeProblem, malformed, unauthorized } from './problem';
import type { AcmeScope } from './scope';
import type { SignedRequest } from './signed';

export async function revokeCert(scope: AcmeScope, r: SignedRequest): Promise<AcmeAnswer> {
  const p = r.payload;
  if (!p || typeof p.certificate !== 'string' || !/^[A-Za-z0-9_-]+$/.test(p.certificate))
    throw malformed('revokeCert needs "certificate": base64url DER');
  const reason = p.reason ?? 0;
  // RFC 5280 CRLReason: 0-10, 7 unused; 8 (removeFromCRL) only in delta CRLs, which this CA does not publish.
  if (typeof reason !== 'number' || !Number.isInteger(reason) || reason < 0 || reason > 10 || reason === 7 || reason === 8)
    throw new AcmeProblem('badRevocationReason', 'reason must be an RFC 5280 reason code: 0-6, 9 or 10');
  let cert: ParsedCert;
  try {
    cert = parseCertificate(Buffer.from(p.certificate, 'base64url'));
  } catch {
    throw malformed('the certificate could not be parsed');
  }
  const stored = await pkiRepository(scope.deps, scope.part).certificate(cert.serial);
  if (!stored || !Buffer.from(stored.der, 'base64').equals(cert.der)) throw unauthorized('the certificate was not issued by this CA');
  if (stored.revokedAt) throw new AcmeProblem('alreadyRevoked', 'the certificate is already revoked');
  const key = serialKey(cert.serial);
  if (r.account) {
    if ((await scope.store.certOwner(key)) !== r.account.value.id) throw unauthorized('the certificate was not ordered by this account');
  } else {
    const certKey = accountKeyOf(cert.publicKey.export({ format: 'jwk' }));
    if ((await thumbprint(certKey)) !== (await thumbprint(r.jwk!))) throw unauthorized('the JWS key is not the certificate key');
  }
  try {
    await revokeSerial(scope.deps, scope.part, cert.serial, reason);
  } catch (e) {
    if (e instanceof InvalidInput) throw unauthorized(e.message);
    throw e;
  }
  return { status: 200 };
}
