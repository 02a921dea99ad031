/**
 * OAuth2 client-credentials tokens from the authority's `/{tenant}/oauth2/v2.0/token`, cached
 * per identity and scope until shortly before they expire. The cache key holds a hash of the
 * secret, never the secret.
 */
import { createHash } from 'node:crypto';
import { CloudError, kindOfStatus, scrub } from '../cloud-common/cloud-error';
import { jsonOf, send } from '../cloud-common/http-client';
import type { Settings } from './config';

const cache = new Map<string, { token: string; until: number }>();

const keyOf = (s: Settings, scope: string) =>
  [s.endpoints.authority, s.tenantId, s.clientId, createHash('sha256').update(s.clientSecret).digest('hex'), scope].join('|');

export function forgetTokens(): void {
  cache.clear();
}

/** A bearer token for `resource` ("https://graph.microsoft.com" style). */
export async function accessToken(s: Settings, resource: string, secret = s.clientSecret): Promise<string> {
  const scope = `${resource}/.default`;
  const key = keyOf({ ...s, clientSecret: secret }, scope);
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.token;
  const res = await send({
    method: 'POST',
    url: `${s.endpoints.authority}/${encodeURIComponent(s.tenantId)}/oauth2/v2.0/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: s.clientId, client_secret: secret, scope }).toString(),
    ...(s.ca ? { ca: s.ca } : {}),
    timeoutMs: s.timeoutMs,
  });
  const body = jsonOf(res.text) as
    { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
  if (res.status !== 200 || typeof body?.access_token !== 'string') {
    const code = typeof body?.error === 'string' ? body.error : '';
    const text = typeof body?.error_description === 'string' ? body.error_description.split('\n')[0]! : `HTTP ${res.status}`;
    const kind =
      code === 'invalid_client' || code === 'unauthorized_client' ? 'unauthorized' : kindOfStatus(res.status === 200 ? 502 : res.status);
    throw new CloudError(kind, res.status, `token request failed: ${code ? code + ': ' : ''}${scrub(text, [secret])}`, code);
  }
  const ttl = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in) || 300;
  cache.set(key, { token: body.access_token, until: Date.now() + Math.max(0, ttl - 60) * 1000 });
  return body.access_token;
}
