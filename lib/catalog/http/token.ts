/**
 * The catalog's token: `X-Catalog-Token` (or its alias `X-Consul-Token`), then
 * `Authorization: Bearer` (scheme in any case), then the deprecated `?token=` query parameter.
 * The caller falls back to the default token, else anonymous. The token is never logged.
 */
import { bearer } from '../../http/auth';

export function catalogToken(headers: Headers, query: URLSearchParams): string | undefined {
  return headers.get('x-catalog-token') || headers.get('x-consul-token') || bearer(headers) || query.get('token') || undefined;
}
