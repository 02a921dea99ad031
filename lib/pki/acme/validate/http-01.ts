/**
 * http-01 (RFC 8555 section 8.3): GET `http://<name>:<httpPort>/.well-known/acme-challenge/<token>`
 * from an address of the name found through the validation's resolver, with the name in the Host
 * header; the body, trailing whitespace trimmed, must be the key authorization.
 *
 * Redirects are followed, at most 10, as the reference CA does, but only to http on the
 * configured http port or https on the configured TLS port (the certificate of an https target is
 * not checked: the proof is the body); each new host is resolved through the same resolver, an
 * IP address target is used as it is. The body read is capped at 64 KiB; the whole exchange
 * ends with the validation's budget. Neither the token nor the key authorization appears in a
 * detail: the challenge path is written `.../acme-challenge/<token>`.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { hostHeader, urlHost } from './address';
import { addressesOf } from './resolve';
import { fail, OK, PROBLEM, type AcmeIdentifier, type ValidationContext, type ValidationOutcome } from './types';

const MAX_REDIRECTS = 10;
const MAX_BODY = 64 * 1024;
const TOKEN = /^[A-Za-z0-9_-]+$/;

type Scheme = 'http' | 'https';
type Fetched = { status: number; location?: string; body?: Buffer; tooLarge?: boolean };
type Attempt = { ok: true; res: Fetched } | { ok: false; outcome: ValidationOutcome; connection: boolean };

export async function validateHttp01(
  id: AcmeIdentifier,
  token: string,
  keyAuthorization: string,
  ctx: ValidationContext,
): Promise<ValidationOutcome> {
  if (!TOKEN.test(token)) return fail(PROBLEM.malformed, 'http-01: the token is not base64url');
  const conceal = (text: string) => text.split(token).join('<token>');
  let url = challengeUrl(id, token, ctx);
  if (!url) return fail(PROBLEM.malformed, `http-01: ${JSON.stringify(id.value.slice(0, 80))} is not a host name`);
  for (let hop = 0; ; hop++) {
    const where = conceal(url.href);
    const attempt = await fetchFromAnyAddress(url, ctx, where);
    if (!attempt.ok) return attempt.outcome;
    const res = attempt.res;
    const location = res.status >= 300 && res.status < 400 ? res.location : undefined;
    if (location === undefined) return checkAnswer(res, where, keyAuthorization);
    if (hop >= MAX_REDIRECTS) return fail(PROBLEM.unauthorized, `http-01: more than ${MAX_REDIRECTS} redirects, the last from ${where}`);
    const next = redirectTarget(location, url, ctx);
    if (typeof next === 'string') return fail(PROBLEM.unauthorized, `http-01: ${where} redirected ${conceal(next)}`);
    url = next;
  }
}

/** `http://<name>:<httpPort>/.well-known/acme-challenge/<token>`, or undefined when the name is no host. */
function challengeUrl(id: AcmeIdentifier, token: string, ctx: ValidationContext): URL | undefined {
  try {
    return new URL(`http://${urlHost(id.value)}:${ctx.settings.httpPort}/.well-known/acme-challenge/${token}`);
  } catch {
    return undefined;
  }
}

/** A GET of the URL from the host's addresses in turn, until one connects. */
async function fetchFromAnyAddress(url: URL, ctx: ValidationContext, where: string): Promise<Attempt> {
  const scheme = url.protocol.slice(0, -1) as Scheme;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (scheme === 'http' ? 80 : 443));
  const found = await addressesOf(host, 'http-01', ctx);
  if (!found.ok) return { ok: false, connection: false, outcome: found.outcome };
  let attempt: Attempt | undefined;
  for (const address of found.value) {
    attempt = await get(scheme, address, port, host, url, ctx, where);
    if (attempt.ok || !attempt.connection) break;
  }
  return attempt!;
}

/** A final answer: 200, within the size cap, its body (trailing whitespace trimmed) the key authorization. */
function checkAnswer(res: Fetched, where: string, keyAuthorization: string): ValidationOutcome {
  if (res.status !== 200) return fail(PROBLEM.unauthorized, `http-01: ${where} answered ${res.status}`);
  if (res.tooLarge) return fail(PROBLEM.unauthorized, `http-01: ${where} answered more than ${MAX_BODY / 1024} KiB`);
  if (res.body!.toString('utf8').trimEnd() !== keyAuthorization)
    return fail(PROBLEM.incorrectResponse, `http-01: ${where} answered a body that is not the key authorization`);
  return OK;
}

/** The redirect's target URL, or why it is refused. */
function redirectTarget(location: string, from: URL, ctx: ValidationContext): URL | string {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return 'to a location that is not a URL';
  }
  const port = Number(next.port || (next.protocol === 'http:' ? 80 : 443));
  if (next.protocol === 'http:' && port === ctx.settings.httpPort) return next;
  if (next.protocol === 'https:' && port === ctx.settings.tlsPort) return next;
  if (next.protocol !== 'http:' && next.protocol !== 'https:')
    return `to a ${next.protocol.slice(0, -1)} URL (only http and https are followed)`;
  return `to ${next.origin} (only http on port ${ctx.settings.httpPort} and https on port ${ctx.settings.tlsPort} are followed)`;
}

/** One GET to `address`; a connection failure says so (the next address may be tried). */
function get(
  scheme: Scheme,
  address: string,
  port: number,
  host: string,
  url: URL,
  ctx: ValidationContext,
  where: string,
): Promise<Attempt> {
  return new Promise((resolve) => {
    const target = `${urlHost(address)}:${port}`;
    const options = {
      host: address,
      port,
      method: 'GET',
      path: `${url.pathname}${url.search}`,
      headers: { host: hostHeader(host, port, scheme), 'user-agent': 'latchkey-acme-validator', accept: '*/*', connection: 'close' },
      agent: false as const,
      signal: ctx.signal,
      ...(scheme === 'https' ? { rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) } : {}),
    };
    const req = (scheme === 'http' ? httpRequest : httpsRequest)(options, (res) => {
      readCapped(res).then(
        (body) => resolve({ ok: true, res: { status: res.statusCode ?? 0, location: header(res, 'location'), ...body } }),
        (e: unknown) => resolve(failure(e, target, where, ctx)),
      );
    });
    req.on('error', (e) => resolve(failure(e, target, where, ctx)));
    req.end();
  });
}

const header = (res: IncomingMessage, name: string): string | undefined => {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/** The body up to MAX_BODY bytes; past that the response is dropped and marked too large. */
function readCapped(res: IncomingMessage): Promise<{ body?: Buffer; tooLarge?: boolean }> {
  if ((res.statusCode ?? 0) !== 200) {
    res.resume();
    return Promise.resolve({});
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        res.destroy();
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    });
    res.on('end', () => resolve({ body: Buffer.concat(chunks) }));
    res.on('error', reject);
  });
}

function failure(e: unknown, target: string, where: string, ctx: ValidationContext): Attempt {
  const code = (e as { code?: string }).code ?? '';
  if (ctx.signal.aborted || code === 'ABORT_ERR') {
    return { ok: false, connection: false, outcome: fail(PROBLEM.connection, `http-01: ${where} did not answer in time (${target})`) };
  }
  if (code === 'ECONNREFUSED')
    return { ok: false, connection: true, outcome: fail(PROBLEM.connection, `http-01: connection refused on ${target}`) };
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code === 'EPROTO') {
    return { ok: false, connection: false, outcome: fail(PROBLEM.tls, `http-01: the TLS handshake with ${target} failed (${code})`) };
  }
  if (code.startsWith('HPE_'))
    return { ok: false, connection: false, outcome: fail(PROBLEM.unauthorized, `http-01: ${where} did not answer in HTTP (${code})`) };
  const connection = ['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ETIMEDOUT'].includes(code);
  return {
    ok: false,
    connection,
    outcome: fail(PROBLEM.connection, `http-01: the request to ${target} failed (${code || 'connection error'})`),
  };
}
