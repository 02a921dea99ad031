/**
 * One authenticated JSON call to the graph or the resource manager, with the clouds' error
 * shape (`{"error":{"code","message"}}`) turned into a CloudError. Throttling and transient
 * server errors are retried a few times.
 */
import { CloudError, kindOfStatus, scrub } from '../cloud-common/cloud-error';
import { jsonOf, send } from '../cloud-common/http-client';
import { transient, withRetries } from '../cloud-common/retry';
import type { Settings } from './config';
import { accessToken } from './token';

export type Api = 'graph' | 'resourceManager';

export interface RestCall {
  api: Api;
  method: string;
  /** Path and query after the API's base URL. */
  path: string;
  body?: unknown;
}

export async function rest<T = unknown>(s: Settings, c: RestCall): Promise<T | undefined> {
  return withRetries(() => once<T>(s, c), { attempts: 3, delayMs: Math.min(s.retryDelayMs, 2000), retryable: transient });
}

async function once<T>(s: Settings, c: RestCall): Promise<T | undefined> {
  const token = await accessToken(s, s.scopes[c.api]);
  const res = await send({
    method: c.method,
    url: s.endpoints[c.api] + c.path,
    headers: {
      authorization: `Bearer ${token}`,
      accept: 'application/json',
      ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(c.body !== undefined ? { body: JSON.stringify(c.body) } : {}),
    ...(s.ca ? { ca: s.ca } : {}),
    timeoutMs: s.timeoutMs,
  });
  const body = jsonOf(res.text);
  if (res.status >= 200 && res.status < 300) return body as T | undefined;
  const err = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const code = typeof err?.code === 'string' ? err.code : '';
  const message = typeof err?.message === 'string' ? err.message : `HTTP ${res.status}`;
  throw new CloudError(kindOfStatus(res.status), res.status, `${code ? code + ': ' : ''}${scrub(message, [s.clientSecret, token])}`, code);
}

/** An OData string literal: single quotes doubled. */
export const odata = (v: string) => `'${v.replace(/'/g, "''")}'`;

export const isNotFound = (e: unknown) => e instanceof CloudError && e.kind === 'not-found';
