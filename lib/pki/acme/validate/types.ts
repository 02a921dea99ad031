/** What the ACME core hands a challenge validator and what it gets back (re-exported by index.ts). */

/** dns value without "*." (the core strips wildcards). */
export type AcmeIdentifier = { type: 'dns' | 'ip'; value: string };

export interface ValidationSettings {
  /** config/acme dns_resolver: "ip" or "ip:port" (IPv6 "[::1]:53"); when set EVERY lookup goes there, else the system resolver. */
  resolver?: string;
  /** ACME_HTTP_PORT (default 80). */
  httpPort: number;
  /** ACME_TLS_PORT (default 443). */
  tlsPort: number;
  /** The whole validation's budget, default 10_000. */
  timeoutMs?: number;
}

/** type: the full ACME URN, e.g. 'urn:ietf:params:acme:error:incorrectResponse'. */
export type ValidationOutcome = { ok: true } | { ok: false; type: string; detail: string };

export type ChallengeKind = 'http-01' | 'dns-01' | 'tls-alpn-01';

const URN = 'urn:ietf:params:acme:error:';

/** The ACME error types a validation answers with (RFC 8555 section 6.7). */
export const PROBLEM = {
  /** The response (body, TXT record, certificate extension) is not the expected one. */
  incorrectResponse: `${URN}incorrectResponse`,
  /** The server could not connect to the validation target. */
  connection: `${URN}connection`,
  /** A DNS lookup failed (server failure, timeout, no address). */
  dns: `${URN}dns`,
  /** The TLS handshake with the validation target failed, or its certificate is unusable. */
  tls: `${URN}tls`,
  /** The target answered, but not as a challenge response (an HTTP error status, no TXT record). */
  unauthorized: `${URN}unauthorized`,
  /** The challenge cannot be validated as given (a token that is not base64url, a bad resolver setting). */
  malformed: `${URN}malformed`,
} as const;

export const OK: ValidationOutcome = { ok: true };

export function fail(type: string, detail: string): ValidationOutcome {
  return { ok: false, type, detail };
}

/** What every validator is given besides the identifier and key authorization. */
export interface ValidationContext {
  settings: ValidationSettings;
  /** Aborted when the whole validation's budget is spent. */
  signal: AbortSignal;
}
