/**
 * AWS Signature Version 4 for local fakes: a verifier that recomputes the canonical request
 * and signature from the raw HTTP request, and a small signer for hand-made requests in tests.
 * Both header-signed requests and presigned URLs (query auth) are accepted. Streaming
 * (aws-chunked) payloads are checked only up to the seed signature.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const ALGORITHM = 'AWS4-HMAC-SHA256';
const UNSIGNED = 'UNSIGNED-PAYLOAD';

export interface SigV4Request {
  method: string;
  /** path and query exactly as sent on the request line */
  url: string;
  /** header name (any case) -> values; repeated headers keep every value */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface SigV4Options {
  service: string;
  region: string;
  /** the secret for an access key id, or undefined when the id is unknown */
  secretFor: (accessKeyId: string) => string | undefined;
  /** allowed difference between the request time and now; AWS allows 5 minutes */
  maxSkewMs?: number;
  now?: () => Date;
  /** S3 signs the path as sent; every other service escapes it a second time */
  doubleEncodePath?: boolean;
}

export type SigV4Failure = 'missing' | 'malformed' | 'unknown-key' | 'scope' | 'expired' | 'payload' | 'mismatch';

export type SigV4Result =
  | { ok: true; accessKeyId: string; signedHeaders: string[] }
  /** `code`/`status` are what AWS JSON-protocol services answer; other fakes may map `reason` themselves */
  | { ok: false; reason: SigV4Failure; code: string; status: number; message: string };

/** RFC 3986 escaping as AWS does it: encodeURIComponent plus the five characters it leaves alone. */
export function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

export function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const h = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
  return h(h(h(h('AWS4' + secret, date), region), service), 'aws4_request');
}

function canonicalPath(rawPath: string, doubleEncode: boolean): string {
  if (!doubleEncode) return rawPath;
  const segments: string[] = [];
  for (const s of rawPath.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..') segments.pop();
    else segments.push(s);
  }
  const path = `${rawPath.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && rawPath.endsWith('/') ? '/' : ''}`;
  return escapeUri(path).replace(/%2F/g, '/');
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Query parameters decoded, in order; `+` stays literal because AWS clients encode spaces as %20. */
function parseQuery(rawQuery: string): [string, string][] {
  if (!rawQuery) return [];
  return rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const i = pair.indexOf('=');
      return i < 0 ? [decode(pair), ''] : [decode(pair.slice(0, i)), decode(pair.slice(i + 1))];
    });
}

function canonicalQuery(params: [string, string][]): string {
  return params
    .filter(([k]) => k.toLowerCase() !== 'x-amz-signature')
    .map(([k, v]) => `${escapeUri(k)}=${escapeUri(v)}`)
    .sort()
    .join('&');
}

function headerValue(headers: SigV4Request['headers'], name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== name || v === undefined) continue;
    const values = Array.isArray(v) ? v : [v];
    return values
      .map((x) =>
        x
          .replace(/[\r\n]/g, ' ')
          .replace(/[ \t]+/g, ' ')
          .trim(),
      )
      .join(',');
  }
  return undefined;
}

export function canonicalRequest(req: SigV4Request, signedHeaders: string[], payloadHash: string, doubleEncodePath = true): string {
  const q = req.url.indexOf('?');
  const path = q < 0 ? req.url : req.url.slice(0, q);
  const query = q < 0 ? '' : req.url.slice(q + 1);
  const headerLines = signedHeaders.map((h) => `${h}:${headerValue(req.headers, h) ?? ''}\n`).join('');
  return [
    req.method,
    canonicalPath(path || '/', doubleEncodePath),
    canonicalQuery(parseQuery(query)),
    headerLines,
    signedHeaders.join(';'),
    payloadHash,
  ].join('\n');
}

function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return [ALGORITHM, amzDate, scope, sha256Hex(canonical)].join('\n');
}

function fail(reason: SigV4Failure, message: string): SigV4Result {
  const code =
    reason === 'missing'
      ? 'MissingAuthenticationTokenException'
      : reason === 'malformed'
        ? 'IncompleteSignatureException'
        : reason === 'unknown-key'
          ? 'UnrecognizedClientException'
          : 'InvalidSignatureException';
  return { ok: false, reason, code, status: 400, message };
}

function parseAmzDate(s: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
}

interface AuthParts {
  credential: string;
  signedHeaders: string;
  signature: string;
  amzDate: string;
  expiresSec?: number;
  presigned: boolean;
}

function authParts(req: SigV4Request): AuthParts | SigV4Result {
  const auth = headerValue(req.headers, 'authorization');
  if (auth !== undefined) {
    if (!auth.startsWith(ALGORITHM + ' ')) return fail('malformed', `only ${ALGORITHM} is supported`);
    const fields = new Map<string, string>();
    for (const part of auth.slice(ALGORITHM.length + 1).split(',')) {
      const i = part.indexOf('=');
      if (i > 0) fields.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
    }
    const credential = fields.get('Credential');
    const signedHeaders = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    if (!credential || !signedHeaders || !signature)
      return fail('malformed', 'Authorization header lacks Credential, SignedHeaders or Signature');
    const amzDate = headerValue(req.headers, 'x-amz-date') ?? '';
    return { credential, signedHeaders, signature, amzDate, presigned: false };
  }
  const q = req.url.indexOf('?');
  const params = new Map(parseQuery(q < 0 ? '' : req.url.slice(q + 1)));
  if (!params.has('X-Amz-Signature')) return fail('missing', 'the request carries no AWS signature');
  if (params.get('X-Amz-Algorithm') !== ALGORITHM) return fail('malformed', `only ${ALGORITHM} is supported`);
  const expires = Number(params.get('X-Amz-Expires') ?? 'NaN');
  return {
    credential: params.get('X-Amz-Credential') ?? '',
    signedHeaders: params.get('X-Amz-SignedHeaders') ?? '',
    signature: params.get('X-Amz-Signature') ?? '',
    amzDate: params.get('X-Amz-Date') ?? '',
    expiresSec: Number.isFinite(expires) ? expires : 0,
    presigned: true,
  };
}

/**
 * The payload hashes the signature may be over. A presigned URL names none: S3 signs
 * UNSIGNED-PAYLOAD there and other services the body's hash, so either is accepted.
 */
function payloadHashes(req: SigV4Request, presigned: boolean): string[] | SigV4Result {
  const q = req.url.indexOf('?');
  const inQuery = presigned ? new Map(parseQuery(q < 0 ? '' : req.url.slice(q + 1))).get('X-Amz-Content-Sha256') : undefined;
  const declared = headerValue(req.headers, 'x-amz-content-sha256') ?? inQuery;
  const actual = sha256Hex(req.body);
  if (declared === undefined) return presigned ? [actual, UNSIGNED] : [actual];
  if (declared === UNSIGNED || declared.startsWith('STREAMING-')) return [declared];
  if (declared !== actual) return fail('payload', 'x-amz-content-sha256 does not match the body');
  return [declared];
}

export function verifySigV4(req: SigV4Request, opts: SigV4Options): SigV4Result {
  const parts = authParts(req);
  if ('ok' in parts) return parts;
  const [accessKeyId, date, region, service, terminator, ...rest] = parts.credential.split('/');
  if (!accessKeyId || !date || !region || !service || terminator !== 'aws4_request' || rest.length > 0) {
    return fail('malformed', 'the credential scope is malformed');
  }
  const secret = opts.secretFor(accessKeyId);
  if (secret === undefined) return fail('unknown-key', 'the access key id is not known to this service');
  if (region !== opts.region) return fail('scope', `credential should be scoped to region ${opts.region}, not ${region}`);
  if (service !== opts.service) return fail('scope', `credential should be scoped to service ${opts.service}, not ${service}`);

  const when = parseAmzDate(parts.amzDate);
  if (!when) return fail('malformed', 'X-Amz-Date is missing or malformed');
  if (parts.amzDate.slice(0, 8) !== date) return fail('scope', 'the credential date does not match X-Amz-Date');
  const now = (opts.now ?? (() => new Date()))().getTime();
  const skew = opts.maxSkewMs ?? 5 * 60_000;
  if (parts.presigned) {
    if (now > when.getTime() + (parts.expiresSec ?? 0) * 1000 || when.getTime() - now > skew)
      return fail('expired', 'the presigned request has expired');
  } else if (Math.abs(now - when.getTime()) > skew) {
    return fail('expired', 'signature expired: the request time is too far from the server time');
  }

  const signedHeaders = parts.signedHeaders.split(';');
  if (!signedHeaders.includes('host')) return fail('malformed', 'the host header must be signed');
  if (signedHeaders.join(';') !== [...signedHeaders].sort().join(';')) return fail('malformed', 'SignedHeaders must be sorted');
  for (const h of signedHeaders) {
    if (h !== h.toLowerCase() || headerValue(req.headers, h) === undefined) return fail('malformed', `signed header ${h} is absent`);
  }

  const hashes = payloadHashes(req, parts.presigned);
  if (!Array.isArray(hashes)) return hashes;
  const scope = `${date}/${region}/${service}/aws4_request`;
  const key = signingKey(secret, date, region, service);
  const given = Buffer.from(parts.signature, 'hex');
  for (const payloadHash of hashes) {
    const canonical = canonicalRequest(req, signedHeaders, payloadHash, opts.doubleEncodePath ?? true);
    const expected = createHmac('sha256', key)
      .update(stringToSign(parts.amzDate, scope, canonical))
      .digest();
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, accessKeyId, signedHeaders };
  }
  return fail('mismatch', 'the request signature does not match the one computed from the secret key');
}

/** The parts of a node request the verifier needs, keeping repeated headers apart. */
export function sigV4RequestOf(req: IncomingMessage, body: Buffer): SigV4Request {
  const headers: Record<string, string[]> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    (headers[name] ??= []).push(req.rawHeaders[i + 1] ?? '');
  }
  return { method: req.method ?? 'GET', url: req.url ?? '/', headers, body };
}

/**
 * Signs a request in place (adds x-amz-date and authorization), for tests that build requests
 * by hand. `headers` must already hold `host`.
 */
export function signSigV4(
  req: { method: string; url: string; headers: Record<string, string>; body: Buffer },
  creds: { accessKeyId: string; secretAccessKey: string },
  scope: { region: string; service: string; date?: Date },
): void {
  const amzDate = (scope.date ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  const date = amzDate.slice(0, 8);
  req.headers['x-amz-date'] = amzDate;
  const lower = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const signed = Object.keys(lower)
    .filter((h) => h !== 'authorization')
    .sort();
  const canonical = canonicalRequest({ ...req, headers: lower }, signed, sha256Hex(req.body));
  const credScope = `${date}/${scope.region}/${scope.service}/aws4_request`;
  const sig = createHmac('sha256', signingKey(creds.secretAccessKey, date, scope.region, scope.service))
    .update(stringToSign(amzDate, credScope, canonical))
    .digest('hex');
  req.headers['authorization'] =
    `${ALGORITHM} Credential=${creds.accessKeyId}/${credScope}, SignedHeaders=${signed.join(';')}, Signature=${sig}`;
}
