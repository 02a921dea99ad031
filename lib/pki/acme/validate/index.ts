/**
 * ACME challenge validation (RFC 8555 section 8, RFC 8737, RFC 8738): what the ACME core calls
 * to decide a challenge. Each kind has its module; this one bounds the whole validation by its
 * budget (`timeoutMs`, default 10 s) and turns anything unexpected into a failed outcome, so a
 * validation always ends with an outcome and never throws.
 *
 * Every DNS lookup goes to `settings.resolver` when it is set (config/acme dns_resolver), else to
 * the system resolver. Details name what failed and where; they never carry the token or the
 * key authorization.
 */
import { validateDns01 } from './dns-01';
import { validateHttp01 } from './http-01';
import { validateTlsAlpn01 } from './tls-alpn-01';
import { fail, PROBLEM, type AcmeIdentifier, type ValidationOutcome, type ValidationSettings } from './types';

export type { AcmeIdentifier, ChallengeKind, ValidationOutcome, ValidationSettings } from './types';
export { PROBLEM } from './types';
export { dns01Value } from './dns-01';
export { ACME_IDENTIFIER_OID, ACME_TLS_ALPN } from './tls-alpn-01';

export const DEFAULT_VALIDATION_TIMEOUT_MS = 10_000;

export async function validateChallenge(
  kind: 'http-01' | 'dns-01' | 'tls-alpn-01',
  id: AcmeIdentifier,
  token: string,
  keyAuthorization: string,
  settings: ValidationSettings,
): Promise<ValidationOutcome> {
  const budget = settings.timeoutMs ?? DEFAULT_VALIDATION_TIMEOUT_MS;
  const signal = AbortSignal.timeout(budget);
  const ctx = { settings, signal };
  try {
    if (kind === 'http-01') return await validateHttp01(id, token, keyAuthorization, ctx);
    if (kind === 'dns-01') return await validateDns01(id, keyAuthorization, ctx);
    if (kind === 'tls-alpn-01') return await validateTlsAlpn01(id, keyAuthorization, ctx);
    return fail(PROBLEM.malformed, `unknown challenge type ${JSON.stringify(String(kind)).slice(0, 40)}`);
  } catch (e) {
    // A bug or an unforeseen failure: still an outcome, with no message that could carry a secret.
    return fail(
      PROBLEM.connection,
      `${kind}: the validation failed unexpectedly (${(e as { code?: string }).code ?? (e as Error).name ?? 'error'})`,
    );
  }
}
