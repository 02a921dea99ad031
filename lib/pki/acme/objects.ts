/** The ACME resources as clients see them (RFC 8555 section 7.1), from the stored records. */
import type { AccountRecord, AuthzRecord, ChallengeRecord, OrderRecord } from './records';
import { acmeUrl, type AcmeScope } from './scope';

type UrlScope = Pick<AcmeScope, 'mountUrl' | 'directory'>;
const time = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export const accountUrl = (s: UrlScope, id: string) => acmeUrl(s, `account/${id}`);
export const orderUrl = (s: UrlScope, id: string) => acmeUrl(s, `order/${id}`);
export const authzUrl = (s: UrlScope, id: string) => acmeUrl(s, `authorization/${id}`);
export const challengeUrl = (s: UrlScope, authz: string, type: string) => acmeUrl(s, `challenge/${authz}/${type}`);

export function directoryObject(s: UrlScope, externalAccountRequired: boolean): Record<string, unknown> {
  return {
    newNonce: acmeUrl(s, 'new-nonce'),
    newAccount: acmeUrl(s, 'new-account'),
    newOrder: acmeUrl(s, 'new-order'),
    revokeCert: acmeUrl(s, 'revoke-cert'),
    keyChange: acmeUrl(s, 'key-change'),
    meta: { externalAccountRequired },
  };
}

export function accountObject(s: UrlScope, a: AccountRecord): Record<string, unknown> {
  return { status: a.status, contact: a.contact, orders: acmeUrl(s, `account/${a.id}/orders`), createdAt: time(a.createdAt) };
}

export function challengeObject(s: UrlScope, authz: AuthzRecord, c: ChallengeRecord): Record<string, unknown> {
  return {
    type: c.type,
    url: challengeUrl(s, authz.id, c.type),
    token: c.token,
    // A processing challenge is shown as processing; clients poll the authorization.
    status: c.status,
    ...(c.validated ? { validated: time(c.validated) } : {}),
    ...(c.error ? { error: c.error } : {}),
  };
}

/** The authorization's status now: pending or valid ones past their expiry are expired. */
export function authzStatus(a: AuthzRecord, now: number): string {
  if ((a.status === 'pending' || a.status === 'valid') && now > a.expires) return 'expired';
  return a.status;
}

export function authzObject(s: UrlScope, a: AuthzRecord, now: number): Record<string, unknown> {
  return {
    identifier: a.identifier,
    status: authzStatus(a, now),
    expires: time(a.expires),
    challenges: a.challenges.map((c) => challengeObject(s, a, c)),
    ...(a.wildcard ? { wildcard: true } : {}),
  };
}

/** How long a finalization may take before an order left `processing` (its instance ended) is ready again. */
export const STALE_FINALIZE_MS = 120_000;

/** The order's status from its authorizations (pending until all are valid, then ready). */
export function orderStatus(o: OrderRecord, authzs: AuthzRecord[], now: number): OrderRecord['status'] {
  if (o.status === 'processing' && now - (o.started ?? 0) <= STALE_FINALIZE_MS) return 'processing';
  if (o.status === 'valid' || o.status === 'invalid') return o.status;
  if (now > o.expires) return 'invalid';
  const statuses = authzs.map((a) => authzStatus(a, now));
  if (statuses.length !== o.authorizations.length || statuses.some((x) => x !== 'pending' && x !== 'valid')) return 'invalid';
  return statuses.every((x) => x === 'valid') ? 'ready' : 'pending';
}

export function orderObject(s: UrlScope, o: OrderRecord, status: string): Record<string, unknown> {
  return {
    status,
    expires: time(o.expires),
    identifiers: o.identifiers,
    authorizations: o.authorizations.map((id) => authzUrl(s, id)),
    finalize: acmeUrl(s, `order/${o.id}/finalize`),
    ...(o.notAfter ? { notAfter: o.notAfter } : {}),
    ...(status === 'valid' ? { certificate: acmeUrl(s, `order/${o.id}/cert`) } : {}),
    ...(o.error ? { error: o.error } : {}),
  };
}
