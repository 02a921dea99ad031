/**
 * The signed sts:GetCallerIdentity request a login carries (base64 fields, as hvac and the
 * reference's CLI send them), decoded and checked before anything is sent: method POST, path
 * `/` without a query, a body that is exactly the call, a SigV4 Authorization scoped to STS in
 * the configured region, and the server-id header present and signed when one is configured.
 * The URL's host is never a destination: it only stands in for a Host header the client did not
 * list (Go clients leave it out), since the signature covers it.
 */
import { InvalidInput } from '../../domain-errors';

export const SERVER_ID_HEADER = 'x-vault-aws-iam-server-id';

export interface LoginRequestInput {
  method: string;
  url: string;
  body: string;
  headers: unknown;
}

export interface LoginRequestRules {
  stsRegion: string;
  /** the X-Vault-AWS-IAM-Server-ID value required, or '' for none */
  serverIdHeaderValue: string;
}

/** What is sent to STS: the client's headers (lower-case names) and body, unchanged. */
export interface CheckedRequest {
  method: 'POST';
  headers: Record<string, string[]>;
  body: Buffer;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const MAX_HEADERS = 64;
/** Headers about the connection, not the request: node sets them, a client's would break the exchange. */
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect'];

function decodeBase64(value: string, field: string): Buffer {
  if (!BASE64.test(value)) throw new InvalidInput(`failed to base64 decode ${field}`);
  return Buffer.from(value, 'base64');
}

function parseJsonHeaders(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidInput('iam_request_headers is not a JSON object of header names to values');
  }
}

/** A JSON map of names to a string or a list of strings (Go's http.Header), given as an object, JSON or base64 JSON. */
export function parseHeaders(raw: unknown): Record<string, string[]> {
  let value = raw;
  if (typeof value === 'string') {
    const text = value.trim();
    value = parseJsonHeaders(text.startsWith('{') ? text : decodeBase64(text, 'iam_request_headers').toString('utf8'));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidInput('iam_request_headers is not a JSON object of header names to values');
  const out = Object.create(null) as Record<string, string[]>;
  const entries = Object.entries(value);
  if (entries.length === 0) throw new InvalidInput('missing iam_request_headers');
  if (entries.length > MAX_HEADERS) throw new InvalidInput(`iam_request_headers holds more than ${MAX_HEADERS} headers`);
  for (const [name, v] of entries) {
    const values = (Array.isArray(v) ? v : [v]).map((x) => (typeof x === 'number' && Number.isFinite(x) ? String(x) : x));
    if (!TOKEN.test(name)) throw new InvalidInput('iam_request_headers names a header that is not a valid header name');
    if (values.length === 0 || !values.every((x): x is string => typeof x === 'string' && VALUE.test(x))) {
      throw new InvalidInput(
        `iam_request_headers: the value of ${name.slice(0, 64)} must be a string or a list of strings without control characters`,
      );
    }
    (out[name.toLowerCase()] ??= []).push(...values);
  }
  return out;
}

/** The one value of a header (repeated values joined with commas, as SigV4 canonicalises them). */
function single(headers: Record<string, string[]>, name: string): string | undefined {
  return headers[name]?.join(',');
}

interface SigV4Authorization {
  region: string;
  service: string;
  signedHeaders: string[];
}

function parseAuthorization(value: string | undefined): SigV4Authorization {
  if (value === undefined) throw new InvalidInput('the signed request must carry exactly one Authorization header');
  const m = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/.exec(value.trim());
  if (!m) throw new InvalidInput('the Authorization header is not an AWS SigV4 (AWS4-HMAC-SHA256) signature');
  const scope = (m[1] ?? '').split('/');
  if (scope.length !== 5 || !/^\d{8}$/.test(scope[1] ?? '') || scope[4] !== 'aws4_request')
    throw new InvalidInput('the Authorization header has a malformed credential scope');
  return { region: scope[2] ?? '', service: scope[3] ?? '', signedHeaders: (m[2] ?? '').split(';') };
}

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(decodeBase64(raw, 'iam_request_url').toString('utf8'));
  } catch (e) {
    if (e instanceof InvalidInput) throw e;
    throw new InvalidInput('error parsing iam_request_url');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInput('iam_request_url is not an http(s) URL');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new InvalidInput('iam_request_url must be the STS root path "/" with no query: only a GetCallerIdentity POST is accepted');
  return url;
}

/** Exactly `Action=GetCallerIdentity&Version=2011-06-15`, in either order, each once. */
function checkBody(body: Buffer): void {
  const pairs = body.toString('utf8').split('&').sort();
  if (pairs.length !== 2 || pairs[0] !== 'Action=GetCallerIdentity' || pairs[1] !== 'Version=2011-06-15') {
    throw new InvalidInput('iam_request_body must be exactly the sts:GetCallerIdentity call: Action=GetCallerIdentity&Version=2011-06-15');
  }
}

function checkServerId(headers: Record<string, string[]>, auth: SigV4Authorization, required: string): void {
  if (!required) return;
  const given = single(headers, SERVER_ID_HEADER);
  if (given === undefined)
    throw new InvalidInput('error validating X-Vault-AWS-IAM-Server-ID header: missing header "X-Vault-AWS-IAM-Server-ID"');
  if (given !== required)
    throw new InvalidInput('error validating X-Vault-AWS-IAM-Server-ID header: the value is not the one this server requires');
  if (!auth.signedHeaders.includes(SERVER_ID_HEADER))
    throw new InvalidInput('error validating X-Vault-AWS-IAM-Server-ID header: the header is not signed');
}

export function checkLoginRequest(input: LoginRequestInput, rules: LoginRequestRules): CheckedRequest {
  if (!input.method) throw new InvalidInput('missing iam_http_request_method');
  if (input.method !== 'POST') throw new InvalidInput("invalid iam_http_request_method; currently only 'POST' is supported");
  if (!input.url) throw new InvalidInput('missing iam_request_url');
  if (!input.body) throw new InvalidInput('missing iam_request_body');
  const url = checkUrl(input.url);
  const body = decodeBase64(input.body, 'iam_request_body');
  checkBody(body);
  const headers = parseHeaders(input.headers);

  const hop = HOP_BY_HOP.filter((h) => headers[h]);
  if (hop.length) throw new InvalidInput(`iam_request_headers must not carry connection headers: ${hop.join(', ')}`);
  const length = single(headers, 'content-length');
  if (length !== undefined && length !== String(body.length))
    throw new InvalidInput('the Content-Length header does not match iam_request_body');
  if (headers.host?.length !== undefined && headers.host.length !== 1)
    throw new InvalidInput('iam_request_headers carries more than one Host header');
  headers.host ??= [url.host];

  const auth = parseAuthorization(headers.authorization?.length === 1 ? headers.authorization[0] : undefined);
  if (auth.service !== 'sts') throw new InvalidInput('the request is signed for another service than sts');
  if (auth.region !== rules.stsRegion)
    throw new InvalidInput(`the request is signed for region ${auth.region.slice(0, 32)}; this mount's STS region is ${rules.stsRegion}`);
  if (!auth.signedHeaders.includes('host')) throw new InvalidInput('the Host header is not signed');
  checkServerId(headers, auth, rules.serverIdHeaderValue);
  return { method: 'POST', headers, body };
}
