/**
 * Authenticating an ACME POST: the JWS names this request's URL, its signature verifies under
 * the account's key (`kid`) or the key it carries (`jwk`), and its nonce is fresh (used up here).
 */
import type { Versioned } from './acme-store';
import { parseJws, payloadObject, verifyJws, type AccountKey, type ParsedJws } from './jws';
import { useNonce } from './nonce';
import { AcmeProblem, malformed } from './problem';
import type { AccountRecord } from './records';
import { acmeUrl, type AcmeScope } from './scope';

export interface SignedRequest {
  parsed: ParsedJws;
  /** The verified payload: undefined for POST-as-GET. */
  payload: Record<string, unknown> | undefined;
  /** The payload's text as signed. */
  payloadText: string;
  /** On a `kid` request: the account (valid). */
  account?: Versioned<AccountRecord>;
  /** On a `jwk` request: the key. */
  jwk?: AccountKey;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The account a `kid` names: its URL in this directory. */
async function accountOf(scope: AcmeScope, kid: string): Promise<Versioned<AccountRecord>> {
  const prefix = acmeUrl(scope, 'account/');
  const id = kid.startsWith(prefix) ? kid.slice(prefix.length) : '';
  if (!ID.test(id)) throw new AcmeProblem('accountDoesNotExist', 'the kid is not an account URL of this directory');
  const account = await scope.store.account(id);
  if (!account) throw new AcmeProblem('accountDoesNotExist', 'no such account');
  if (account.value.directory !== scope.directory) throw new AcmeProblem('unauthorized', 'the account belongs to another ACME directory');
  return account;
}

/**
 * `signer`: `kid` (an existing account), `jwk` (newAccount, and revokeCert by the certificate's
 * key) or `either` (revokeCert).
 */
export async function authenticate(
  scope: AcmeScope,
  body: Uint8Array | undefined,
  contentType: string | undefined,
  url: string,
  signer: 'kid' | 'jwk' | 'either',
): Promise<SignedRequest> {
  const parsed = parseJws(body, contentType);
  const { header } = parsed;
  if (header.url !== url) throw new AcmeProblem('unauthorized', 'the JWS "url" is not the URL of this request');
  if (signer === 'kid' && !header.kid) throw malformed('this request must be signed by an account ("kid"), not a "jwk"');
  if (signer === 'jwk' && !header.jwk) throw malformed('this request must carry its key ("jwk"), not a "kid"');
  const account = header.kid ? await accountOf(scope, header.kid) : undefined;
  const payloadText = await verifyJws(parsed, account ? account.value.key : header.jwk!);
  await useNonce(scope.part, header.nonce!, scope.deps.now());
  if (account && account.value.status !== 'valid') throw new AcmeProblem('unauthorized', `the account is ${account.value.status}`);
  return {
    parsed,
    payload: payloadObject(payloadText),
    payloadText,
    ...(account ? { account } : {}),
    ...(header.jwk ? { jwk: header.jwk } : {}),
  };
}

/** For requests that act on an account: the account, with the EAB rule of `always-required` applied. */
export function accountOfRequest(scope: AcmeScope, r: SignedRequest): AccountRecord {
  const a = r.account?.value;
  if (!a) throw malformed('this request must be signed by an account');
  if (scope.config.eabPolicy === 'always-required' && !a.eab)
    throw new AcmeProblem('externalAccountRequired', 'this mount requires accounts created with an external account binding');
  return a;
}
