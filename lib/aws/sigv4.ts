/**
 * AWS Signature Version 4 for the JSON-protocol requests Latchkey sends (POST / with a JSON
 * body). Small on purpose: it is on the cold-start path. Checked against the SigV4 verifier of
 * the local fakes and against requests the official SDK signs (test/unit/aws-sigv4.test.ts).
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

/** The headers to send with a signed POST of `body` to `host` (path "/", no query). */
export function signJsonPost(options: {
  host: string;
  service: string;
  region: string;
  target: string;
  contentType: string;
  body: string;
  credentials: Credentials;
  now?: Date;
}): Record<string, string> {
  const { host, service, region, credentials: c } = options;
  const amzDate = (options.now ?? new Date()).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const date = amzDate.slice(0, 8);
  const payloadHash = sha256(options.body);
  const headers: Record<string, string> = {
    'content-type': options.contentType,
    host,
    'x-amz-content-sha256': payloadHash,
    'x-amz-date': amzDate,
    'x-amz-target': options.target,
    ...(c.sessionToken ? { 'x-amz-security-token': c.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonical = ['POST', '/', '', ...names.map((n) => `${n}:${headers[n]!.trim()}`), '', names.join(';'), payloadHash].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signature = createHmac('sha256', signingKey(c.secretAccessKey, date, region, service)).update(toSign).digest('hex');
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
  return headers;
}
