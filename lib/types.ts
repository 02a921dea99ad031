/**
 * The types every layer shares: operation names, the mount a request arrived under, the
 * caller and the authorizer's contract. This module imports nothing, so domain code (sys/, the
 * engines) and the HTTP edge can both depend on it without depending on each other.
 */

/** The engine types this build knows; the runtime list is infra/surfaces.json (config.ts reads it). */
export type EngineType = 'pki' | 'ssh' | 'cloud-a' | 'cloud-b' | 'kv';

/** What a request does to a path: `patch` changes only the fields it names (Vault's PATCH, its own capability). */
export type OpName = 'read' | 'list' | 'write' | 'patch' | 'delete';

/** The mount (or fixed prefix, for sys) a request arrived under. */
export interface MountRef {
  /** "pki_int", or "sys" / "auth/token" for the system backend. */
  path: string;
  type: string;
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
  /** Top-level request data keys the audit log records in clear (the reference's audit_non_hmac_request_keys). */
  auditClearRequestKeys?: readonly string[];
  /** Top-level response data keys the audit log records in clear (audit_non_hmac_response_keys). */
  auditClearResponseKeys?: readonly string[];
}

/** Who is calling: what the app needs to know of the token a request carries. */
export interface Principal {
  accessor: string;
  policies: string[];
  displayName: string;
  /** The token's metadata (a login's role_name, account_id, mapped claims…). */
  metadata?: Readonly<Record<string, string>>;
  /** The login identity of a token made by an auth method: what identity templates expand. */
  identity?: LoginIdentity;
  /** The CIDR blocks the token is bound to: every token it makes (children, orphans, wrapping tokens) is bound to them too. */
  boundCidrs?: readonly string[];
  /**
   * The token's record as it authorised this request, its uses already counted. The sys
   * backend answers lookup-self from it on a token's last use, when the token is gone already.
   */
  snapshot?: Readonly<Record<string, unknown>>;
  /**
   * The token's record as it authorised this request, its uses counted (absent on its last use:
   * see `snapshot`): the sys backend reads the caller's own token from it, not from the store again.
   */
  record?: Readonly<Record<string, unknown>>;
  /**
   * The token's accessor items (its own, then its ancestors') with the versions that found it
   * live: a lease it owns is written on condition they are unchanged (lib/sys/leases.ts).
   */
  liveAs?: readonly { key: string; version: number }[];
}

/** Who logged in, through which auth mount: the reference's entity alias. */
export interface LoginIdentity {
  mountAccessor: string;
  mountType: string;
  /** The alias name: a role id, a caller ARN, a JWT's user claim. */
  name: string;
  metadata: Readonly<Record<string, string>>;
}

/** What a request does, as policies see it: a write is `create` or `update` by the item's existence. */
export type AccessOp = 'read' | 'list' | 'create' | 'update' | 'patch' | 'delete';

export interface AccessRequest {
  token: string | undefined;
  /** Relative to /v1/; a LIST ends with "/". */
  path: string;
  /** A write's create or update may still be being decided by the path's existence check (read while the token is checked). */
  op: AccessOp | Promise<AccessOp>;
  sudo: boolean;
  /**
   * The request's parameters (body of a write, query of a read) as the handler will use them,
   * for parameter constraints (lib/http/access-params.ts builds them from the path's fields).
   */
  params: AccessParam[];
  /** The caller's address (the socket's; API Gateway's sourceIp), for tokens bound to CIDR blocks. */
  remoteAddress?: string;
  /** A read that answers this folder's listing (with its trailing slash): refused where the listing is denied. */
  listing?: string;
}

/** How parameter constraints compare a parameter's value: the way the handler reads it. */
export type ParamKind = 'string' | 'int' | 'bool' | 'duration' | 'list' | 'map';

/**
 * One request parameter as parameter constraints see it: the value after the path's field
 * coercion (a list split and trimmed, a duration in seconds), so a rule holds on exactly what
 * the handler uses, whatever the spelling sent.
 */
export interface AccessParam {
  /** The name as sent, lower-cased, then the names of the fields it is an alias of (their rules apply too). */
  names: string[];
  /**
   * Not sent as such: a value the handler will use that the request carries inside another
   * parameter (the names a CSR asks for). Its values are held to the rules on its names; its
   * name is not required to be allowed, nor does it count as sent for required parameters.
   */
  derived?: true;
  value: unknown;
  /** Absent: compared as sent (an undeclared parameter, or input that failed its field's check). */
  kind?: ParamKind;
  /**
   * How strings compare beyond equality and globs: `lower-case` where the handler treats them
   * case-insensitively (or folds them); `address` for IP addresses and CIDR blocks, in their
   * canonical spelling (`0:0::1` is `::1`).
   */
  compareAs?: CompareAs;
}

export type CompareAs = 'lower-case' | 'address';

export interface Authorizer {
  /** Checks the request's token and policies. Throws Forbidden (403), or returns the caller. Counts one use of a token with num_uses. */
  authorize(req: AccessRequest): Promise<Principal>;
  /** The caller `authorize` let in, checked again for another operation (its token's use not counted again). Throws Forbidden. */
  recheck(principal: Principal, req: AccessRequest): Promise<void>;
}

/** The `wrap_info` block of a wrapped answer, as Vault answers it. */
export interface WrapInfo {
  token: string;
  accessor: string;
  ttl: number;
  creation_time: string;
  creation_path: string;
  wrapped_accessor?: string;
}

/** A response to keep under a new single-use wrapping token. */
export interface WrapRequest {
  /** The original response, as the JSON text its caller would have received. */
  response: string;
  /** The request path (relative to /v1/) that produced it. */
  path: string;
  /** Seconds, already checked against the bounds. */
  ttl: number;
  displayName: string;
  /** The accessor of a token the response carries. */
  wrappedAccessor?: string;
  /** The wrapping token is bound to the CIDR blocks of the token that asked for it. */
  boundCidrs?: readonly string[];
}

/** Response wrapping, as the edge asks for it (lib/sys/wrapping.ts keeps the responses). */
export interface ResponseWrapper {
  wrap(request: WrapRequest): Promise<WrapInfo>;
}
