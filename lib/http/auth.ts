/** The token a request carries. The caller and the authorizer's contract are lib/types.ts's. */
export type { AccessOp, AccessRequest, Authorizer, Principal } from '../types';

/** The engines' token: `X-Svc-Token`, then `X-Vault-Token` (existing clients), then Bearer. */
export function engineToken(headers: Headers): string | undefined {
  return headers.get('x-svc-token') || headers.get('x-vault-token') || bearer(headers) || undefined;
}

export function bearer(headers: Headers): string | undefined {
  const h = headers.get('authorization');
  const m = h ? /^bearer\s+(\S+)\s*$/i.exec(h) : null;
  return m?.[1];
}
