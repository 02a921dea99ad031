/**
 * Orders, authorizations and challenges (RFC 8555 sections 7.4, 7.5, 8): newOrder makes one
 * authorization per identifier; answering a challenge validates it before the response leaves
 * (nothing is left running when a function instance ends), moving the authorization
 * pending -> processing -> valid | invalid.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Versioned } from './acme-store';
import { json, type AcmeAnswer } from './answer';
import { challengeTypesOf, checkIdentifiersAllowed, parseIdentifiers } from './identifiers';
import { thumbprint } from './jws';
import { authzObject, authzStatus, authzUrl, challengeObject, orderObject, orderStatus, orderUrl } from './objects';
import { AcmeProblem, malformed, unauthorized } from './problem';
import type { AccountRecord, AuthzRecord, ChallengeRecord, ChallengeType, Identifier, OrderRecord } from './records';
import type { AcmeScope } from './scope';
import { validateChallenge, type ValidationOutcome, type ValidationSettings } from './validate';

/** How long a new order and its authorizations may wait for validation and finalization. */
const ORDER_LIFETIME_MS = 24 * 3600_000;
/** A challenge left `processing` by an instance that ended is validated again after this. */
const STALE_PROCESSING_MS = 60_000;
/** Validation attempts per challenge answer, and the pause between them. */
const ATTEMPTS = 2;
const RETRY_MS = 1000;

export function validationSettings(scope: AcmeScope): ValidationSettings {
  const ports = scope.deps.env.acme;
  return {
    ...(scope.config.dnsResolver ? { resolver: scope.config.dnsResolver } : {}),
    httpPort: ports?.httpPort ?? 80,
    tlsPort: ports?.tlsPort ?? 443,
    // Two attempts of at most 8 s each stay within API Gateway's 29 s.
    timeoutMs: 8000,
  };
}

export async function newOrder(
  scope: AcmeScope,
  account: AccountRecord,
  payload: Record<string, unknown> | undefined,
): Promise<AcmeAnswer> {
  if (!payload) throw malformed('newOrder needs a payload');
  if (payload.notBefore !== undefined) throw malformed('notBefore is not supported: certificates start when they are issued');
  const notAfter = requestedNotAfter(scope, payload.notAfter);
  const identifiers = parseIdentifiers(payload.identifiers);
  checkIdentifiersAllowed(scope.policy, identifiers);
  const now = scope.deps.now();
  const expires = now + ORDER_LIFETIME_MS;
  const orderId = randomUUID();
  const authzs = identifiers.map((id) => newAuthz(account, orderId, id, expires));
  const order: OrderRecord = {
    id: orderId,
    account: account.id,
    directory: scope.directory,
    status: 'pending',
    identifiers,
    authorizations: authzs.map((a) => a.id),
    expires,
    ...(notAfter ? { notAfter } : {}),
    createdAt: now,
  };
  await scope.store.createOrder(order, authzs);
  return json(orderObject(scope, order, 'pending'), { status: 201, location: orderUrl(scope, orderId) });
}

/** The order's notAfter, if asked: an RFC 3339 time in the future and within max_ttl. */
function requestedNotAfter(scope: AcmeScope, notAfter: unknown): string | undefined {
  if (notAfter === undefined) return undefined;
  if (typeof notAfter !== 'string' || Number.isNaN(Date.parse(notAfter))) throw malformed('notAfter must be an RFC 3339 time');
  const ms = Date.parse(notAfter);
  if (ms <= scope.deps.now() || ms > scope.deps.now() + scope.config.maxTtl * 1000)
    throw malformed(`notAfter must be in the future and within max_ttl (${scope.config.maxTtl}s)`);
  return notAfter;
}

/** A pending authorization for one identifier (a wildcard's without its `*.`), with its challenges. */
function newAuthz(account: AccountRecord, orderId: string, id: Identifier, expires: number): AuthzRecord {
  const wildcard = id.type === 'dns' && id.value.startsWith('*.');
  return {
    id: randomUUID(),
    account: account.id,
    order: orderId,
    identifier: wildcard ? { type: 'dns', value: id.value.slice(2) } : id,
    wildcard,
    status: 'pending',
    expires,
    challenges: challengeTypesOf(id).map((type) => ({ type, token: randomBytes(32).toString('base64url'), status: 'pending' })),
  };
}

async function authzsOf(scope: AcmeScope, o: OrderRecord): Promise<AuthzRecord[]> {
  return (await Promise.all(o.authorizations.map((a) => scope.store.authz(a)))).flatMap((a) => (a ? [a.value] : []));
}

/** Orders whose status is read at once for the account's orders list. */
const LIST_READS = 25;

/**
 * The account's orders list (RFC 8555 section 7.1.2.1) leaves out invalid orders, which it
 * SHOULD NOT include, and any that are gone. An order's status is the one its own URL answers.
 */
export async function listedOrderIds(scope: AcmeScope, account: AccountRecord): Promise<string[]> {
  const ids = await scope.store.orderIds(account.id);
  const listed: string[] = [];
  for (let i = 0; i < ids.length; i += LIST_READS) {
    const batch = ids.slice(i, i + LIST_READS);
    const statuses = await Promise.all(
      batch.map(async (id) => {
        const o = (await scope.store.order(id))?.value;
        if (!o || o.account !== account.id || o.directory !== scope.directory) return undefined;
        const final = o.status === 'valid' || o.status === 'invalid';
        return orderStatus(o, final ? [] : await authzsOf(scope, o), scope.deps.now());
      }),
    );
    batch.forEach((id, j) => {
      const status = statuses[j];
      if (status && status !== 'invalid') listed.push(id);
    });
  }
  return listed;
}

/** The order, owned by the account, with its authorizations. */
export async function loadOrder(
  scope: AcmeScope,
  account: AccountRecord,
  id: string,
): Promise<{ order: Versioned<OrderRecord>; authzs: AuthzRecord[]; status: OrderRecord['status'] }> {
  const order = await scope.store.order(id);
  if (!order || order.value.directory !== scope.directory) throw new AcmeProblem('malformed', 'no such order', { status: 404 });
  if (order.value.account !== account.id) throw unauthorized('the order belongs to another account');
  const authzs = await authzsOf(scope, order.value);
  return { order, authzs, status: orderStatus(order.value, authzs, scope.deps.now()) };
}

export async function getOrder(scope: AcmeScope, account: AccountRecord, id: string): Promise<AcmeAnswer> {
  const { order, status } = await loadOrder(scope, account, id);
  return json(orderObject(scope, order.value, status));
}

async function loadAuthz(scope: AcmeScope, account: AccountRecord, id: string): Promise<Versioned<AuthzRecord>> {
  const a = await scope.store.authz(id);
  if (!a) throw new AcmeProblem('malformed', 'no such authorization', { status: 404 });
  if (a.value.account !== account.id) throw unauthorized('the authorization belongs to another account');
  return a;
}

/** POST-as-GET reads it; `{"status": "deactivated"}` deactivates it (RFC 8555 section 7.5.2). */
export async function authorization(
  scope: AcmeScope,
  account: AccountRecord,
  id: string,
  payload: Record<string, unknown> | undefined,
): Promise<AcmeAnswer> {
  const a = await loadAuthz(scope, account, id);
  if (payload) {
    if (payload.status !== 'deactivated') throw malformed('an authorization can only be deactivated (status "deactivated")');
    if (a.value.status !== 'pending' && a.value.status !== 'valid') throw malformed(`the authorization is ${a.value.status}`);
    const next: AuthzRecord = { ...a.value, status: 'deactivated' };
    await scope.store.putAuthz(next, a.version);
    return json(authzObject(scope, next, scope.deps.now()));
  }
  return json(authzObject(scope, a.value, scope.deps.now()));
}

const CHALLENGE_TYPES: readonly string[] = ['http-01', 'dns-01', 'tls-alpn-01'];

/**
 * A challenge: POST-as-GET reads it; an (empty) JSON object asks the server to validate it,
 * which happens here, before the answer.
 */
export async function challenge(
  scope: AcmeScope,
  account: AccountRecord,
  authzId: string,
  type: string,
  payload: Record<string, unknown> | undefined,
): Promise<AcmeAnswer> {
  if (!CHALLENGE_TYPES.includes(type)) throw new AcmeProblem('malformed', 'no such challenge', { status: 404 });
  const a = await loadAuthz(scope, account, authzId);
  const answer = (r: AuthzRecord) =>
    json(challengeObject(scope, r, challengeOf(r, type)!), { links: [`<${authzUrl(scope, authzId)}>;rel="up"`] });
  const c = challengeOf(a.value, type);
  if (!c) throw new AcmeProblem('malformed', 'no such challenge', { status: 404 });
  const now = scope.deps.now();
  if (payload === undefined || !validationMayStart(a.value, c, now)) return answer(a.value);
  const claimed = await claimValidation(scope, a, type, now);
  // Another request claimed it first: answer the challenge as that one left it.
  if (!claimed) return answer((await loadAuthz(scope, account, authzId)).value);
  return answer(await validateClaimed(scope, account, claimed, c));
}

const challengeOf = (a: AuthzRecord, type: string) => a.challenges.find((c) => c.type === type);

/** A pending authorization's challenge that is pending, or processing but left by an instance that ended. */
function validationMayStart(a: AuthzRecord, c: ChallengeRecord, now: number): boolean {
  return (
    authzStatus(a, now) === 'pending' &&
    (c.status === 'pending' || (c.status === 'processing' && now - (c.started ?? 0) > STALE_PROCESSING_MS))
  );
}

/**
 * Claims the validation (one request validates; a concurrent answer sees it processing):
 * the authorization as stored with the challenge processing, or undefined if another request won.
 */
async function claimValidation(
  scope: AcmeScope,
  a: Versioned<AuthzRecord>,
  type: string,
  now: number,
): Promise<Versioned<AuthzRecord> | undefined> {
  const claimed: AuthzRecord = {
    ...a.value,
    challenges: a.value.challenges.map((x) => (x.type === type ? { ...x, status: 'processing', started: now } : x)),
  };
  try {
    await scope.store.putAuthz(claimed, a.version);
  } catch {
    return undefined;
  }
  return { value: claimed, version: a.version + 1 };
}

/** Validates the claimed challenge and stores the authorization valid or invalid with it. */
async function validateClaimed(
  scope: AcmeScope,
  account: AccountRecord,
  a: Versioned<AuthzRecord>,
  c: ChallengeRecord,
): Promise<AuthzRecord> {
  const keyAuthorization = `${c.token}.${await thumbprint(account.key)}`;
  const outcome = await validateWithRetry(c.type, a.value, c.token, keyAuthorization, validationSettings(scope));
  const result = withOutcome(a.value, c.type, outcome, scope.deps.now());
  await scope.store.putAuthz(result, a.version);
  return result;
}

/** The authorization, and its challenge of `type`, valid (validated at `done`) or invalid with the outcome's error. */
function withOutcome(a: AuthzRecord, type: ChallengeType, outcome: ValidationOutcome, done: number): AuthzRecord {
  return {
    ...a,
    status: outcome.ok ? 'valid' : 'invalid',
    challenges: a.challenges.map((x) =>
      x.type !== type
        ? x
        : outcome.ok
          ? { type: x.type, token: x.token, status: 'valid', validated: done }
          : { type: x.type, token: x.token, status: 'invalid', error: { type: outcome.type, detail: outcome.detail, status: 403 } },
    ),
  };
}

async function validateWithRetry(
  type: ChallengeType,
  a: AuthzRecord,
  token: string,
  keyAuthorization: string,
  settings: ValidationSettings,
) {
  let outcome = await validateChallenge(type, a.identifier, token, keyAuthorization, settings);
  for (let i = 1; i < ATTEMPTS && !outcome.ok; i++) {
    await new Promise((r) => setTimeout(r, RETRY_MS));
    outcome = await validateChallenge(type, a.identifier, token, keyAuthorization, settings);
  }
  return outcome;
}
