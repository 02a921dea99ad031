/**
 * AWS Signature Version 4 for the requests Latchkey sends itself (JSON-protocol POSTs to
 * DynamoDB and KMS, Lambda Invoke). Small on purpose: it is on the cold-start path. Checked
 * against the official SDK signer and the SigV4 verifier of the local fakes
 * (test/unit/aws-json-client.test.ts).
 */
import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

const keyCache = new Map<string, Buffer>();

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const id = `${secret}\n${date}\n${region}\n${service}`;
  let key = keyCache.get(id);
  if (!key) {
    key = hmac(hmac(hmac(hmac('AWS4' + secret, date), region), service), 'aws4_request');
    if (keyCache.size > 16) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

/** RFC 3986 escaping of one path segment, as SigV4 canonical paths need it. */
const escape = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

export interface SignInput {
  method: string;
  host: string;
  /** The path as sent (already escaped once); no query string. */
  path: string;
  service: string;
  region: string;
  headers: Record<string, string>;
  body: string;
  credentials: Credentials;
  now?: Date;
}

/** The headers to send: the given ones plus host, dates, token and authorization. */
export function signRequest(o: SignInput): Record<string, string> {
  const amzDate = (o.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const payloadHash = sha256(o.body);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(o.headers).map(([k, v]) => [k.toLowerCase(), v])),
    host: o.host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
    ...(o.credentials.sessionToken ? { 'x-amz-security-token': o.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  // Every service but S3 escapes the (already escaped) path segments once more.
  const path = o.path.split('/').map(escape).join('/') || '/';
  const canonical = [o.method, path, '', ...names.map((n) => `${n}:${headers[n]!.trim()}`), '', names.join(';'), payloadHash].join('\n');
  const scope = `${date}/${o.region}/${o.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signature = createHmac('sha256', signingKey(o.credentials.secretAccessKey, date, o.region, o.service))
    .update(toSign)
    .digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${o.credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return headers;
}

/** A JSON-protocol call: POST / with X-Amz-Target. */
export function signJsonPost(o: {
  host: string;
  service: string;
  region: string;
  target: string;
  contentType: string;
  body: string;
  credentials: Credentials;
  now?: Date;
}): Record<string, string> {
  return signRequest({
    method: 'POST',
    host: o.host,
    path: '/',
    service: o.service,
    region: o.region,
    headers: { 'content-type': o.contentType, 'x-amz-target': o.target },
    body: o.body,
    credentials: o.credentials,
    ...(o.now ? { now: o.now } : {}),
  });
}
