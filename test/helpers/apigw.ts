/**
 * Real-shaped Lambda inputs for invoking handlers directly: API Gateway HTTP API (payload
 * format 2.0) events as API Gateway builds them, EventBridge scheduled events, and a Lambda
 * context.
 *
 * What API Gateway does that these builders copy: header names are lowercased and repeated
 * headers joined with commas; cookies leave the headers for `cookies`; `rawQueryString` is
 * the query as sent, `queryStringParameters` its decoded, comma-joined view; `routeKey` is
 * the matched route and `pathParameters.proxy` the greedy part; a binary body arrives
 * base64-encoded with `isBase64Encoded: true`.
 */
import type { LambdaContext, LambdaEvent } from 'hono/aws-lambda';
import { randomUUID } from 'node:crypto';

export interface HttpApiEventV2 {
  version: '2.0';
  routeKey: string;
  rawPath: string;
  rawQueryString: string;
  cookies?: string[];
  headers: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  pathParameters?: Record<string, string>;
  requestContext: {
    accountId: string;
    apiId: string;
    authentication: null;
    authorizer: Record<string, never>;
    domainName: string;
    domainPrefix: string;
    http: { method: string; path: string; protocol: string; sourceIp: string; userAgent: string };
    requestId: string;
    routeKey: string;
    stage: string;
    time: string;
    timeEpoch: number;
  };
  body: string | null;
  isBase64Encoded: boolean;
}

export interface HttpEventOptions {
  /** Request headers, any case; `cookie` is moved to `cookies` as API Gateway does. */
  headers?: Record<string, string | string[]>;
  /** A string (sent as is), bytes (sent base64-encoded), or a value sent as JSON. */
  body?: string | Uint8Array | object;
  /** Send a string body base64-encoded, as API Gateway does for binary media. */
  base64?: boolean;
  cookies?: string[];
  sourceIp?: string;
  /** The matched route; by default `ANY /v1/<first segment>/{proxy+}`, the routes infra/ deploys. */
  routeKey?: string;
}

const API_ID = 'a1b2c3d4e5';
const DOMAIN = `${API_ID}.execute-api.us-east-1.amazonaws.com`;
const USER_AGENT = 'latchkey-test/1.0';

/** API Gateway's request time format: 21/Nov/2026:23:24:25 +0000. */
function requestTime(d: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getUTCDate())}/${months[d.getUTCMonth()]}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

function defaultRouteKey(rawPath: string): string {
  const first = /^\/v1\/([^/]+)\//.exec(rawPath)?.[1];
  return first ? `ANY /v1/${first}/{proxy+}` : '$default';
}

function lowercaseHeaders(input: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(input)) {
    const name = k.toLowerCase();
    const value = Array.isArray(v) ? v.join(',') : v;
    out[name] = out[name] === undefined ? value : `${out[name]},${value}`;
  }
  return out;
}

function queryParameters(raw: string): Record<string, string> | undefined {
  if (!raw) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(raw)) out[k] = out[k] === undefined ? v : `${out[k]},${v}`;
  return out;
}

function encodeBody(options: HttpEventOptions): { body: string | null; isBase64Encoded: boolean; json: boolean } {
  const b = options.body;
  if (b === undefined) return { body: null, isBase64Encoded: false, json: false };
  if (b instanceof Uint8Array) return { body: Buffer.from(b).toString('base64'), isBase64Encoded: true, json: false };
  const json = typeof b !== 'string';
  const text = typeof b === 'string' ? b : JSON.stringify(b);
  return options.base64
    ? { body: Buffer.from(text, 'utf8').toString('base64'), isBase64Encoded: true, json }
    : { body: text, isBase64Encoded: false, json };
}

/** An HTTP API v2 event for `method` on `target` (a path, optionally with `?query`). */
export function httpEvent(method: string, target: string, options: HttpEventOptions = {}): HttpApiEventV2 {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQueryString = q < 0 ? '' : target.slice(q + 1);
  const { body, isBase64Encoded, json } = encodeBody(options);
  const headers = lowercaseHeaders({
    accept: '*/*',
    host: DOMAIN,
    'user-agent': USER_AGENT,
    'x-amzn-trace-id': `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    'x-forwarded-for': options.sourceIp ?? '203.0.113.7',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(body !== null ? { 'content-length': String(Buffer.byteLength(body, isBase64Encoded ? 'base64' : 'utf8')) } : {}),
    ...options.headers,
  });
  const cookies = [...(options.cookies ?? []), ...(headers.cookie ? headers.cookie.split(/;\s*/) : [])];
  delete headers.cookie;
  const routeKey = options.routeKey ?? defaultRouteKey(rawPath);
  const proxy = /\{proxy\+\}$/.test(routeKey) ? rawPath.split('/').slice(3).join('/') : undefined;
  const query = queryParameters(rawQueryString);
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    ...(cookies.length ? { cookies } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    ...(proxy ? { pathParameters: { proxy } } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: API_ID,
      authentication: null,
      authorizer: {},
      domainName: DOMAIN,
      domainPrefix: API_ID,
      http: {
        method: method.toUpperCase(),
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: options.sourceIp ?? '203.0.113.7',
        userAgent: USER_AGENT,
      },
      requestId: randomUUID().slice(0, 16),
      routeKey,
      stage: '$default',
      time: requestTime(now),
      timeEpoch: now.getTime(),
    },
    body,
    isBase64Encoded,
  };
}

/** The same event typed for hono/aws-lambda's `handle()`; it is structurally one of its events. */
export const asLambdaEvent = (e: HttpApiEventV2): LambdaEvent => e;

export interface ScheduledEvent {
  version: '0';
  id: string;
  'detail-type': 'Scheduled Event';
  source: 'aws.events';
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, never>;
}

/** What EventBridge sends a target of a `rate(...)` rule. */
export function scheduledEvent(rule = 'latchkey-dev-SweeperEventsRuleSchedule1-ABC123'): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:123456789012:rule/${rule}`],
    detail: {},
  };
}

/** A Lambda context whose remaining time counts down from `timeoutMs` at creation. */
export function lambdaContext(functionName = 'latchkey-dev-sys', timeoutMs = 29_000): LambdaContext {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/11/21/[$LATEST]${randomUUID().replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}
