/** Who is calling: the token carried by a request, and what the app needs to know of it. */
import type { OpName } from './path';

export interface Principal {
  accessor: string;
  policies: string[];
  displayName: string;
}

export interface Authorizer {
  /**
   * Checks `token` for `op` on `path` (relative to /v1/). Throws PermissionDenied, or
   * returns the caller. Counts one use of a token with num_uses.
   */
  authorize(token: string | undefined, path: string, op: OpName, sudo: boolean): Promise<Principal>;
}

/** The engines' token: `X-Svc-Token`, then `X-Vault-Token` (existing clients), then Bearer. */
export function engineToken(headers: Headers): string | undefined {
  return headers.get('x-svc-token') || headers.get('x-vault-token') || bearer(headers) || undefined;
}

export function bearer(headers: Headers): string | undefined {
  const h = headers.get('authorization');
  const m = h ? /^bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}
