/**
 * Response wrapping, as the reference server does it: a response is kept, sealed, under a
 * single-use token that holds only the built-in `response-wrapping` policy, and handed out once.
 *
 * The wrapped response lives at `wrapped/<wrapping token accessor>` in the sys partition,
 * sealed and bound to that key. Token revocation (and the expiry sweep) deletes it, so an
 * expired wrapping token takes its response with it. Handing it out is a conditional delete of
 * that item: of any number of concurrent unwraps, exactly one gets the response.
 */
import type { Deps } from '../deps';
import { ConflictError, InvalidInput } from '../domain-errors';
import { isSealed, type SealedValue } from '../keys/sealed';
import { logError } from '../log';
import { RESPONSE_WRAPPING_POLICY } from './policies';
import { boundCidrsOf, checkBoundCidrs } from './token-principal';
import type { TokenRecord } from './tokens';
import type { WrapInfo, WrapRequest } from '../types';

/**
 * The sealing scope of wrapped responses: every function that serves requests may wrap, so its
 * role may seal under this scope (and not under sys, the token key's scope, which it only opens).
 */
export const WRAP_SCOPE = 'wrapped';

interface StoredWrap {
  creation_path: string;
  creation_time: string;
  creation_ttl: number;
  response: SealedValue;
}

const INVALID = 'wrapping token is not valid or does not exist';
const keyOf = (accessor: string) => `wrapped/${accessor}`;

export async function wrapResponse(deps: Deps, input: WrapRequest): Promise<WrapInfo> {
  const { token, record } = await deps.tokens.create({
    policies: [RESPONSE_WRAPPING_POLICY],
    display_name: input.displayName,
    meta: {},
    num_uses: 1,
    ttl: input.ttl,
    explicit_max_ttl: input.ttl,
    renewable: false,
    parent: '',
    path: input.path,
    ...(input.boundCidrs?.length ? { bound_cidrs: [...input.boundCidrs] } : {}),
  });
  const key = keyOf(record.accessor);
  const creationTime = new Date(deps.now()).toISOString();
  try {
    const response = await deps.sealer.seal(input.response, WRAP_SCOPE, key);
    const stored: StoredWrap = { creation_path: input.path, creation_time: creationTime, creation_ttl: input.ttl, response };
    await deps.store.partition('sys').put(key, { ...stored, response: { ...response } }, { ifAbsent: true });
  } catch (e) {
    await deps.tokens.revoke(record).catch(() => undefined);
    throw e;
  }
  return {
    token,
    accessor: record.accessor,
    ttl: input.ttl,
    creation_time: creationTime,
    creation_path: input.path,
    ...(input.wrappedAccessor ? { wrapped_accessor: input.wrappedAccessor } : {}),
  };
}

/** A wrapping token, and the caller's address for a token bound to CIDR blocks. */
export interface WrappingCall {
  token: string | undefined;
  remoteAddress?: string | undefined;
}

/** The live record of a wrapping token used from where it may be; 400 for anything else. */
export async function wrappingToken(deps: Deps, call: WrappingCall): Promise<TokenRecord> {
  const found = call.token ? await deps.tokens.lookup(call.token) : undefined;
  const r = found?.record;
  if (!r || r.policies.length !== 1 || r.policies[0] !== RESPONSE_WRAPPING_POLICY) throw new InvalidInput(INVALID);
  checkBoundCidrs(r, call.remoteAddress);
  return r;
}

async function storedWrap(deps: Deps, record: TokenRecord) {
  const item = await deps.store.partition('sys').get<StoredWrap>(keyOf(record.accessor));
  if (!item || !isSealed(item.value.response)) throw new InvalidInput(INVALID);
  return item;
}

/** What sys/wrapping/lookup answers; the token is not used up. */
export async function lookupWrap(deps: Deps, call: WrappingCall) {
  const { value } = await storedWrap(deps, await wrappingToken(deps, call));
  return { creation_path: value.creation_path, creation_time: value.creation_time, creation_ttl: value.creation_ttl };
}

/** Takes the wrapped response out, once: the conditional delete decides between concurrent callers. */
async function claim(deps: Deps, call: WrappingCall): Promise<{ record: TokenRecord; wrap: StoredWrap; response: string }> {
  const record = await wrappingToken(deps, call);
  const item = await storedWrap(deps, record);
  const key = keyOf(record.accessor);
  const response = await deps.sealer.openText(item.value.response, key);
  try {
    await deps.store.partition('sys').delete(key, { ifVersion: item.version });
  } catch (e) {
    if (e instanceof ConflictError) throw new InvalidInput(INVALID);
    throw e;
  }
  // The response is claimed: a failed revocation must not lose it (the token has nothing left to give).
  await deps.tokens.revoke(record).catch((e: unknown) => logError('wrapping-revoke-failed', { accessor: record.accessor }, e));
  return { record, wrap: item.value, response };
}

/** The original response's JSON text; the wrapping token is revoked. */
export async function unwrap(deps: Deps, call: WrappingCall): Promise<string> {
  return (await claim(deps, call)).response;
}

/**
 * The same response under a new wrapping token with the original creation TTL and path. The
 * new token is made first, so a failure leaves the old one usable; losing the race to another
 * caller revokes the new one.
 */
export async function rewrap(deps: Deps, call: WrappingCall): Promise<WrapInfo> {
  const record = await wrappingToken(deps, call);
  const { value } = await storedWrap(deps, record);
  const response = await deps.sealer.openText(value.response, keyOf(record.accessor));
  const info = await wrapResponse(deps, {
    response,
    path: value.creation_path,
    ttl: value.creation_ttl,
    displayName: record.display_name,
    boundCidrs: boundCidrsOf(record),
  });
  try {
    await claim(deps, call);
  } catch (e) {
    const fresh = await deps.tokens.byAccessor(info.accessor);
    if (fresh) await deps.tokens.revoke(fresh);
    throw e;
  }
  return info;
}
