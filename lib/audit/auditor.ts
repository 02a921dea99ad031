/**
 * The audit log: one JSON record when a request is let in and one for its answer (or error),
 * with the same request id, on every configured device. Records follow the reference server's
 * audit entries (`type`, `time`, `auth`, `request`, `response`, `error`); every string value of
 * request and response data, and the client token and accessor, leave as HMACs (hasher.ts),
 * except the mount's non-HMAC keys, and on a device with `log_raw`.
 *
 * Fail closed: a record that no device took fails the request (a 500, before the handler runs
 * for the request record, so nothing changes).
 */
import { HttpError } from '../errors';
import type { Principal } from '../types';
import type { AuditDevice } from './devices';
import { hashStrings, type AuditHasher } from './hasher';

/** What is known of a request by the time it is recorded. */
export interface AuditRequest {
  id: string;
  /** read, list, create, update, delete (a write is create or update once the path knows). */
  operation: string;
  mountType: string;
  /** "pki/", "sys/", "auth/token/", "kv/". */
  mountPoint: string;
  /** Relative to /v1/. */
  path: string;
  data?: unknown;
  remoteAddress?: string;
  userAgent?: string;
  clientToken?: string;
  principal?: Principal;
  /** Top-level data keys recorded in clear (the mount's audit_non_hmac_request_keys). */
  clearKeys?: readonly string[];
}

/** What the answer carried, as the surface rendered it. */
export interface AuditResponse {
  status: number;
  data?: unknown;
  /** A lease the answer opened. */
  leaseId?: string;
  /** A token the answer issued (auth block). */
  auth?: unknown;
  wrapInfo?: unknown;
  warnings?: string[];
  /** A body that is not JSON (PEM, DER, text): recorded as its HMAC with its type. */
  raw?: { body: string | Uint8Array; contentType: string };
  clearKeys?: readonly string[];
}

export class AuditUnavailable extends HttpError {
  constructor(cause?: unknown) {
    super(500, ['the audit log could not record the request'], { cause });
  }
}

export class Auditor {
  constructor(
    readonly devices: readonly AuditDevice[],
    readonly hasher: AuditHasher,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.devices.length > 0;
  }

  device(path: string): AuditDevice | undefined {
    const want = path.endsWith('/') ? path : `${path}/`;
    return this.devices.find((d) => d.path === want);
  }

  async request(req: AuditRequest): Promise<void> {
    await this.emit((hash) => ({ type: 'request', time: this.time(), auth: authOf(req, hash), request: requestOf(req, hash) }));
  }

  async response(req: AuditRequest, res: AuditResponse, error: string | undefined): Promise<void> {
    await this.emit((hash) => ({
      type: 'response',
      time: this.time(),
      auth: authOf(req, hash),
      request: requestOf(req, hash),
      response: responseOf(req, res, hash),
      ...(error ? { error } : {}),
    }));
  }

  private time(): string {
    return new Date(this.now()).toISOString();
  }

  /** One line per device (raw or hashed); succeeds when at least one device wrote it. */
  private async emit(build: (hash: (s: string) => string) => Record<string, unknown>): Promise<void> {
    if (!this.devices.length) return;
    let hashed: string | undefined;
    let raw: string | undefined;
    let written = 0;
    let failure: unknown;
    const hash = await this.hasher.hashFn().catch((e: unknown) => {
      throw new AuditUnavailable(e);
    });
    for (const d of this.devices) {
      const line = d.options.log_raw === 'true' ? (raw ??= JSON.stringify(build((s) => s)) + '\n') : (hashed ??= JSON.stringify(build(hash)) + '\n');
      try {
        d.write(line);
        written++;
      } catch (e) {
        failure = e;
      }
    }
    if (!written) throw new AuditUnavailable(failure);
  }
}

function authOf(req: AuditRequest, hash: (s: string) => string): Record<string, unknown> {
  const p = req.principal;
  const snap = p?.snapshot ?? {};
  return {
    ...(req.clientToken ? { client_token: hash(req.clientToken) } : {}),
    ...(p ? { accessor: hash(p.accessor), display_name: p.displayName, policies: p.policies, token_policies: p.policies } : {}),
    ...(p && typeof snap.meta === 'object' && snap.meta !== null ? { metadata: snap.meta } : {}),
    ...(p ? { token_type: 'service' } : {}),
  };
}

function requestOf(req: AuditRequest, hash: (s: string) => string): Record<string, unknown> {
  return {
    id: req.id,
    operation: req.operation,
    mount_type: req.mountType,
    mount_point: req.mountPoint,
    ...(req.clientToken ? { client_token: hash(req.clientToken) } : {}),
    ...(req.principal ? { client_token_accessor: hash(req.principal.accessor) } : {}),
    path: req.path,
    ...(req.data !== undefined ? { data: hashStrings(req.data, hash, req.clearKeys) } : {}),
    ...(req.remoteAddress ? { remote_address: req.remoteAddress } : {}),
    ...(req.userAgent ? { user_agent: req.userAgent } : {}),
  };
}

const AUTH_CLEAR = ['policies', 'token_policies', 'identity_policies', 'metadata', 'lease_duration', 'renewable', 'orphan', 'entity_id', 'token_type', 'num_uses'];

function responseOf(req: AuditRequest, res: AuditResponse, hash: (s: string) => string): Record<string, unknown> {
  const out: Record<string, unknown> = { mount_type: req.mountType, mount_point: req.mountPoint, status_code: res.status };
  if (res.raw) {
    const body = typeof res.raw.body === 'string' ? res.raw.body : Buffer.from(res.raw.body).toString('base64');
    out.data = { http_content_type: res.raw.contentType, http_raw_body: hash(body), http_status_code: res.status };
  } else if (res.data !== undefined && res.data !== null) {
    out.data = hashStrings(res.data, hash, res.clearKeys);
  }
  if (res.leaseId) out.secret = { lease_id: res.leaseId };
  // A token's secrets (client_token, accessor) as HMACs; what it may do stays readable.
  if (res.auth) out.auth = hashStrings(res.auth, hash, AUTH_CLEAR);
  if (res.wrapInfo) out.wrap_info = hashStrings(res.wrapInfo, hash);
  if (res.warnings?.length) out.warnings = res.warnings;
  return out;
}
