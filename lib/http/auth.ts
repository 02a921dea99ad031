/** Who is calling: the token carried by a request, and what the app needs to know of it. */

export interface Principal {
  accessor: string;
  policies: string[];
  displayName: string;
  /**
   * The token's record as it authorised this request, its uses already counted. The sys
   * backend answers lookup-self from it on a token's last use, when the token is gone already.
   */
  snapshot?: Readonly<Record<string, unknown>>;
}

/** What a request does, as policies see it: a write is `create` or `update` by the item's existence. */
export type AccessOp = 'read' | 'list' | 'create' | 'update' | 'delete';

export interface AccessRequest {
  token: string | undefined;
  /** Relative to /v1/; a LIST ends with "/". */
  path: string;
  op: AccessOp;
  sudo: boolean;
  /** The request's parameters (body of a write, query of a read), for parameter constraints. */
  data: Record<string, unknown>;
}

export interface Authorizer {
  /** Checks the request's token and policies. Throws PermissionDenied, or returns the caller. Counts one use of a token with num_uses. */
  authorize(req: AccessRequest): Promise<Principal>;
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
