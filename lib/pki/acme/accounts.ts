/** Accounts (RFC 8555 section 7.3): newAccount (with external account binding), update, deactivation, key rollover. */
import { randomUUID } from 'node:crypto';
import { json, type AcmeAnswer } from './answer';
import { accountKeyOf, parseJws, thumbprint, verifyEab, verifyJws, payloadObject } from './jws';
import { accountObject, accountUrl, orderUrl } from './objects';
import { listedOrderIds } from './orders';
import { AcmeProblem, malformed, unauthorized } from './problem';
import type { AccountRecord } from './records';
import type { AcmeScope } from './scope';
import type { SignedRequest } from './signed';

const MAX_CONTACTS = 10;

/** mailto: contacts only, one plain address each (RFC 8555 section 7.3). */
export function checkContacts(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_CONTACTS || !v.every((c) => typeof c === 'string'))
    throw new AcmeProblem('invalidContact', `contact must be a list of at most ${MAX_CONTACTS} URLs`);
  for (const c of v as string[]) {
    if (!c.startsWith('mailto:')) throw new AcmeProblem('unsupportedContact', 'only mailto: contacts are supported');
    if (!/^mailto:[A-Za-z0-9.!#$%&'*+/=^_`{|}~-]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(c))
      throw new AcmeProblem('invalidContact', `invalid contact ${JSON.stringify(c.slice(0, 80))}: one address, no header fields`);
  }
  return v as string[];
}

/** The existing account of a key, answered as the RFC says (200 with its Location). */
async function existing(scope: AcmeScope, id: string): Promise<AcmeAnswer> {
  const a = await scope.store.account(id);
  if (!a) throw new AcmeProblem('serverInternal', 'the account key is linked to a missing account');
  if (a.value.status !== 'valid') throw unauthorized(`the account of this key is ${a.value.status}`);
  return json(accountObject(scope, a.value), { location: accountUrl(scope, id) });
}

export async function newAccount(scope: AcmeScope, r: SignedRequest): Promise<AcmeAnswer> {
  const key = r.jwk!;
  const p = r.payload ?? {};
  const thumb = await thumbprint(key);
  const known = await scope.store.accountIdByThumbprint(thumb);
  if (known) return existing(scope, known);
  if (p.onlyReturnExisting === true) throw new AcmeProblem('accountDoesNotExist', 'no account exists with this key');
  const contact = checkContacts(p.contact);
  if (p.termsOfServiceAgreed !== undefined && typeof p.termsOfServiceAgreed !== 'boolean')
    throw malformed('termsOfServiceAgreed must be a boolean');
  let eab: string | undefined;
  if (p.externalAccountBinding !== undefined) {
    eab = await verifyEab(p.externalAccountBinding, r.parsed.header.url!, key, async (kid) => {
      const rec = await scope.store.eab(kid);
      return rec && rec.directory === scope.directory ? scope.store.eabKey(rec) : undefined;
    });
    if (!(await scope.store.useEab(eab))) throw unauthorized('the external account binding was used already');
  } else if (scope.config.eabPolicy !== 'not-required') {
    throw new AcmeProblem('externalAccountRequired', 'this mount requires an external account binding (acme/new-eab)');
  }
  const account: AccountRecord = {
    id: randomUUID(),
    key,
    thumbprint: thumb,
    status: 'valid',
    contact,
    directory: scope.directory,
    ...(eab ? { eab } : {}),
    createdAt: scope.deps.now(),
  };
  await scope.store.putAccount(account);
  if (!(await scope.store.claimKey(thumb, account.id))) {
    // Another request registered the same key at the same moment: that account is the one.
    await scope.store.deleteAccount(account);
    const winner = await scope.store.accountIdByThumbprint(thumb);
    if (winner) return existing(scope, winner);
    throw new AcmeProblem('serverInternal', 'the account key is being registered by another request; retry');
  }
  return json(accountObject(scope, account), { status: 201, location: accountUrl(scope, account.id) });
}

/** POST to the account URL: read it, update its contacts, or deactivate it. */
export async function updateAccount(scope: AcmeScope, r: SignedRequest, id: string): Promise<AcmeAnswer> {
  const a = r.account!;
  if (a.value.id !== id) throw unauthorized('the account URL is not the signing account');
  const p = r.payload;
  if (!p) return json(accountObject(scope, a.value), { location: accountUrl(scope, id) });
  const next: AccountRecord = { ...a.value };
  if (p.contact !== undefined) next.contact = checkContacts(p.contact);
  if (p.status !== undefined) {
    if (p.status !== 'deactivated') throw malformed('an account can only be deactivated (status "deactivated")');
    next.status = 'deactivated';
  }
  await scope.store.putAccount(next, a.version);
  return json(accountObject(scope, next), { location: accountUrl(scope, id) });
}

export async function accountOrders(scope: AcmeScope, a: AccountRecord, id: string): Promise<AcmeAnswer> {
  if (a.id !== id) throw unauthorized('the account URL is not the signing account');
  return json({ orders: (await listedOrderIds(scope, a)).map((o) => orderUrl(scope, o)) });
}

/** keyChange (RFC 8555 section 7.3.5): an inner JWS by the new key, inside the old key's. */
export async function keyChange(scope: AcmeScope, r: SignedRequest): Promise<AcmeAnswer> {
  const a = r.account!;
  // The inner JWS is signed by the new key and carries no nonce of its own (RFC 8555 section 7.3.5).
  const parsedInner = parseJws(Buffer.from(r.payloadText), 'application/jose+json', { nonce: 'optional' });
  if (!parsedInner.header.jwk) throw malformed('the inner keyChange JWS must carry the new key as "jwk"');
  if (parsedInner.header.url !== r.parsed.header.url) throw malformed('the inner keyChange JWS url differs from the outer one');
  const payload = payloadObject(await verifyJws(parsedInner, parsedInner.header.jwk));
  if (!payload || payload.account !== accountUrl(scope, a.value.id)) throw malformed('the keyChange payload must name this account');
  const oldKey = accountKeyOf(payload.oldKey);
  if ((await thumbprint(oldKey)) !== a.value.thumbprint) throw unauthorized('oldKey is not the account key');
  const newKey = parsedInner.header.jwk;
  const newThumb = await thumbprint(newKey);
  const holder = await scope.store.accountIdByThumbprint(newThumb);
  if (holder)
    throw new AcmeProblem('malformed', 'the new key is in use by another account', { status: 409, location: accountUrl(scope, holder) });
  if (!(await scope.store.claimKey(newThumb, a.value.id)))
    throw new AcmeProblem('malformed', 'the new key is in use by another account', { status: 409 });
  try {
    await scope.store.putAccount({ ...a.value, key: newKey, thumbprint: newThumb }, a.version);
  } catch (e) {
    await scope.store.releaseKey(newThumb);
    throw e;
  }
  await scope.store.releaseKey(a.value.thumbprint);
  return json(accountObject(scope, { ...a.value, key: newKey, thumbprint: newThumb }), { location: accountUrl(scope, a.value.id) });
}
