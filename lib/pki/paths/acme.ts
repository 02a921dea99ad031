/**
 * The ACME server's paths (RFC 8555) on each PKI mount, in the reference server's layout: the
 * mount's default directory under `acme/`, one per role under `roles/<role>/acme/`, and both
 * again under each issuer, `issuer/<ref>/acme/` and `issuer/<ref>/roles/<role>/acme/`, whose
 * certificates that issuer signs. They are unauthenticated (the JWS authenticates), take their
 * bodies raw (application/jose+json), and answer in ACME's own shapes: every answer carries a
 * fresh Replay-Nonce and the directory as `Link: rel="index"`; errors are RFC 7807 problem
 * documents.
 */
import { logError } from '../../log';
import { f, type Fields } from '../../http/fields';
import { definePath, type PathSpec, type Req, type ReqContext, type Result } from '../../http/path';
import { accountOrders, keyChange, newAccount, updateAccount } from '../acme/accounts';
import type { AcmeAnswer } from '../acme/answer';
import { certificate, finalize } from '../acme/finalize';
import { newNonce } from '../acme/nonce';
import { directoryObject } from '../acme/objects';
import { authorization, challenge, getOrder, newOrder } from '../acme/orders';
import { AcmeProblem } from '../acme/problem';
import { revokeCert } from '../acme/revoke-cert';
import type { AccountRecord } from '../acme/records';
import { acmeUrl, openScope, requestUrl, type AcmeScope } from '../acme/scope';
import { accountOfRequest, authenticate, type SignedRequest } from '../acme/signed';

type Params = Record<string, string | undefined>;

/** The answer as the HTTP layer sends it: a fresh nonce, the index link, no caching. */
async function render(req: ReqContext, scope: AcmeScope | undefined, a: AcmeAnswer): Promise<Result> {
  const headers: Record<string, string> = {
    'replay-nonce': await newNonce(req.part, req.deps.now()),
    'cache-control': 'no-store',
  };
  const links = [...(scope ? [`<${acmeUrl(scope, 'directory')}>;rel="index"`] : []), ...(a.links ?? [])];
  if (links.length) headers.link = links.join(', ');
  if (a.location) headers.location = a.location;
  if (a.body === undefined) return { status: a.status, headers };
  const text = typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
  return { raw: { body: text, contentType: a.contentType ?? 'application/json', status: a.status }, headers };
}

function problemAnswer(req: ReqContext, e: unknown): AcmeAnswer {
  if (e instanceof AcmeProblem)
    return { status: e.status, body: e.document, contentType: 'application/problem+json', ...(e.location ? { location: e.location } : {}) };
  logError('acme-fault', { mount: req.mount.path, path: req.path }, e);
  const p = new AcmeProblem('serverInternal', 'internal error');
  return { status: 500, body: p.document, contentType: 'application/problem+json' };
}

/** Runs one ACME operation in its scope; every failure becomes a problem document. */
async function serve(req: Req, run: (scope: AcmeScope, params: Params) => Promise<AcmeAnswer>): Promise<Result> {
  const params = req.data as Params;
  let scope: AcmeScope | undefined;
  try {
    scope = await openScope(req.deps, req.part, req.mount, { issuerRef: params.issuer_ref, role: params.role }, req.headers);
    return await render(req, scope, await run(scope, params));
  } catch (e) {
    return render(req, scope, problemAnswer(req, e));
  }
}

/** A POST signed as `signer` requires, with the verified request handed on. */
const signed =
  (signer: 'kid' | 'jwk' | 'either', run: (scope: AcmeScope, r: SignedRequest, params: Params) => Promise<AcmeAnswer>) => (req: Req) =>
    serve(req, async (scope, params) =>
      run(scope, await authenticate(scope, req.body, req.contentType, requestUrl(scope, req.path), signer), params),
    );

type AccountRun = (
  scope: AcmeScope,
  account: AccountRecord,
  payload: Record<string, unknown> | undefined,
  params: Params,
) => Promise<AcmeAnswer>;

/** A POST by an account (with the always-required EAB rule applied), handed the account and the payload. */
const byAccount = (run: AccountRun) => signed('kid', (scope, r, params) => run(scope, accountOfRequest(scope, r), r.payload, params));

/** A POST-as-GET by an account: the payload must be empty (RFC 8555 section 6.3). */
const readByAccount = (run: (scope: AcmeScope, account: AccountRecord, params: Params) => Promise<AcmeAnswer>) =>
  signed('kid', (scope, r, params) => {
    if (r.payloadText !== '') throw new AcmeProblem('malformed', 'this resource is read by POST-as-GET: the payload must be empty');
    return run(scope, accountOfRequest(scope, r), params);
  });

const roleField = { role: f.pathParam({ description: 'The role whose ACME directory this is.' }) };
const issuerField = {
  issuer_ref: f.pathParam({ description: "The issuer that signs this directory's certificates: default, its id or its name." }),
};

const PREFIXES: { prefix: string; fields: Fields }[] = [
  { prefix: 'acme/', fields: {} },
  { prefix: 'roles/:role/acme/', fields: roleField },
  { prefix: 'issuer/:issuer_ref/acme/', fields: issuerField },
  { prefix: 'issuer/:issuer_ref/roles/:role/acme/', fields: { ...issuerField, ...roleField } },
];

interface Endpoint {
  path: string;
  fields?: Record<string, ReturnType<typeof f.pathParam>>;
  help: string;
  read?: (req: Req) => Promise<Result>;
  write?: (req: Req) => Promise<Result>;
}

const id = (what: string) => f.pathParam({ description: `The ${what} id.` });

const ENDPOINTS: Endpoint[] = [
  {
    path: 'directory',
    help: 'The ACME directory (RFC 8555 section 7.1.1).',
    read: (req) => serve(req, async (scope) => ({ status: 200, body: directoryObject(scope, scope.config.eabPolicy !== 'not-required') })),
  },
  {
    path: 'new-nonce',
    help: 'A fresh nonce, in the Replay-Nonce header (HEAD: 200, GET: 204 No Content).',
    read: (req) => serve(req, async () => ({ status: req.head ? 200 : 204 })),
  },
  { path: 'new-account', help: 'Create an account, or find the one of a key.', write: signed('jwk', (scope, r) => newAccount(scope, r)) },
  {
    path: 'account/:id',
    fields: { id: id('account') },
    help: 'An account: read it, update its contacts, or deactivate it.',
    write: signed('kid', (scope, r, p) => updateAccount(scope, r, p.id!)),
  },
  {
    path: 'account/:id/orders',
    fields: { id: id('account') },
    help: "The account's orders.",
    write: readByAccount((scope, a, p) => accountOrders(scope, a, p.id!)),
  },
  {
    path: 'key-change',
    help: 'Roll the account key over (RFC 8555 section 7.3.5).',
    write: signed('kid', (scope, r) => keyChange(scope, r)),
  },
  { path: 'new-order', help: 'Order a certificate.', write: byAccount((scope, a, payload) => newOrder(scope, a, payload)) },
  {
    path: 'order/:id',
    fields: { id: id('order') },
    help: 'An order.',
    write: readByAccount((scope, a, p) => getOrder(scope, a, p.id!)),
  },
  {
    path: 'order/:id/finalize',
    fields: { id: id('order') },
    help: 'Finalize an order with a CSR.',
    write: byAccount((scope, a, payload, p) => finalize(scope, a, p.id!, payload)),
  },
  {
    path: 'order/:id/cert',
    fields: { id: id('order') },
    help: 'The certificate of a valid order, with its chain (application/pem-certificate-chain).',
    write: readByAccount((scope, a, p) => certificate(scope, a, p.id!)),
  },
  {
    path: 'authorization/:id',
    fields: { id: id('authorization') },
    help: 'An authorization: read or deactivate it.',
    write: byAccount((scope, a, payload, p) => authorization(scope, a, p.id!, payload)),
  },
  {
    path: 'challenge/:id/:type',
    fields: { id: id('authorization'), type: f.pathParam({ description: 'http-01, dns-01 or tls-alpn-01.' }) },
    help: 'A challenge: read it, or ask the server to validate it (validated before the answer).',
    write: byAccount((scope, a, payload, p) => challenge(scope, a, p.id!, p.type!, payload)),
  },
  {
    path: 'revoke-cert',
    help: 'Revoke a certificate (signed by its account or its key).',
    write: signed('either', (scope, r) => revokeCert(scope, r)),
  },
];

/** GET (and HEAD) on a resource read by POST-as-GET: 405 as RFC 8555 section 6.3 says, with a nonce like every answer. */
const postOnly = (req: Req) =>
  serve(req, async () => {
    throw new AcmeProblem('malformed', 'this resource takes POST (read it with POST-as-GET)', { status: 405 });
  }).then((r) => ({ ...r, headers: { ...r.headers, allow: 'POST' } }));

function acmePath(prefix: { prefix: string; fields: Fields }, e: Endpoint): PathSpec {
  e = e.read ? e : { ...e, read: postOnly };
  return definePath({
    pattern: prefix.prefix + e.path,
    fields: { ...prefix.fields, ...(e.fields ?? {}) },
    help: e.help,
    unauthenticated: [...(e.read ? (['read'] as const) : []), ...(e.write ? (['write'] as const) : [])],
    rawBody: true,
    answers: ['application/json'],
    operations: { ...(e.read ? { read: e.read } : {}), ...(e.write ? { write: e.write } : {}) },
  });
}

export const acmePaths: PathSpec[] = PREFIXES.flatMap((p) => ENDPOINTS.map((e) => acmePath(p, e)));
