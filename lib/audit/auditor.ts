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
import { hashedJson, hashWith, type AuditHasher } from './hasher';

/** What is known of a request by the time it is recorded; not changed after (its response record repeats its rendering). */
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
  private writerOf?: Promise<RecordWriter>;

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
    await this.emit('request', req, undefined, undefined);
  }

  async response(req: AuditRequest, res: AuditResponse, error: string | undefined): Promise<void> {
    await this.emit('response', req, res, error);
  }

  private async emit(
    kind: 'request' | 'response',
    req: AuditRequest,
    res: AuditResponse | undefined,
    error: string | undefined,
  ): Promise<void> {
    if (!this.devices.length) return;
    const writer = await this.writer();
    writer.write(kind, req, res, error, new Date(this.now()).toISOString());
  }

  /** The writer, made once the HMAC key is known (no key: the record cannot be written, fail closed). */
  private writer(): Promise<RecordWriter> {
    this.writerOf ??= this.hasher.ensureKey().then(
      (key) => new RecordWriter(this.devices, key),
      (e: unknown) => {
        throw new AuditUnavailable(e);
      },
    );
    this.writerOf.catch(() => (this.writerOf = undefined));
    return this.writerOf;
  }
}

/**
 * Renders records and writes them to the devices, synchronously: one line per device (raw or
 * hashed); succeeds when at least one device wrote it. The `"auth":…,"request":…` part is
 * rendered once per request and mode: the response record repeats the request record's (a
 * request is not changed once recorded).
 */
export class RecordWriter {
  private readonly heads = new Map<string, { raw?: string; hashed?: string }>();
  private readonly hash: (s: string) => string;

  constructor(
    private readonly devices: readonly AuditDevice[],
    key: Buffer,
  ) {
    this.hash = (s) => hashWith(key, s);
  }

  write(kind: 'request' | 'response', req: AuditRequest, res: AuditResponse | undefined, error: string | undefined, time: string): void {
    const heads = this.heads.get(req.id) ?? {};
    if (kind === 'request') this.heads.set(req.id, heads);
    else this.heads.delete(req.id);
    const lines: { raw?: string; hashed?: string } = {};
    const render = (mode: 'raw' | 'hashed'): string => {
      const hash = mode === 'raw' ? (v: string) => v : memo(this.hash);
      const head = (heads[mode] ??= `"auth":${JSON.stringify(authOf(req, hash))},"request":${requestOf(req, hash)}`);
      if (lines[mode] !== undefined) return lines[mode];
      if (kind === 'request') return (lines[mode] = `{"type":"request","time":"${time}",${head}}\n`);
      const tail = error ? `,"error":${JSON.stringify(error)}` : '';
      return (lines[mode] =
        `{"type":"response","time":"${time}",${head},"response":${responseOf(req, res ?? { status: 0 }, hash)}${tail}}\n`);
    };
    let written = 0;
    let failure: unknown;
    for (const d of this.devices) {
      try {
        d.write(render(d.options.log_raw === 'true' ? 'raw' : 'hashed'));
        written++;
      } catch (e) {
        failure = e;
      }
    }
    if (!written) throw new AuditUnavailable(failure);
  }
}

/** The hash, remembering this record's values (a token and its accessor appear twice). */
function memo(hash: (s: string) => string): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    let h = seen.get(s);
    if (h === undefined) seen.set(s, (h = hash(s)));
    return h;
  };
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

function requestOf(req: AuditRequest, hash: (s: string) => string): string {
  return jsonObject([
    ['id', JSON.stringify(req.id)],
    ['operation', JSON.stringify(req.operation)],
    ['mount_type', JSON.stringify(req.mountType)],
    ['mount_point', JSON.stringify(req.mountPoint)],
    ['client_token', req.clientToken ? JSON.stringify(hash(req.clientToken)) : undefined],
    ['client_token_accessor', req.principal ? JSON.stringify(hash(req.principal.accessor)) : undefined],
    ['path', JSON.stringify(req.path)],
    ['data', req.data !== undefined ? hashedJson(req.data, hash, req.clearKeys) : undefined],
    ['remote_address', req.remoteAddress ? JSON.stringify(req.remoteAddress) : undefined],
    ['user_agent', req.userAgent ? JSON.stringify(req.userAgent) : undefined],
  ]);
}

const AUTH_CLEAR = [
  'policies',
  'token_policies',
  'identity_policies',
  'metadata',
  'lease_duration',
  'renewable',
  'orphan',
  'entity_id',
  'token_type',
  'num_uses',
];

function responseOf(req: AuditRequest, res: AuditResponse, hash: (s: string) => string): string {
  let data: string | undefined;
  if (res.raw) {
    const body = typeof res.raw.body === 'string' ? res.raw.body : Buffer.from(res.raw.body).toString('base64');
    data = JSON.stringify({ http_content_type: res.raw.contentType, http_raw_body: hash(body), http_status_code: res.status });
  } else if (res.data !== undefined && res.data !== null) {
    data = hashedJson(res.data, hash, res.clearKeys);
  }
  return jsonObject([
    ['mount_type', JSON.stringify(req.mountType)],
    ['mount_point', JSON.stringify(req.mountPoint)],
    ['status_code', JSON.stringify(res.status)],
    ['data', data],
    ['secret', res.leaseId ? JSON.stringify({ lease_id: res.leaseId }) : undefined],
    // A token's secrets (client_token, accessor) as HMACs; what it may do stays readable.
    ['auth', res.auth ? hashedJson(res.auth, hash, AUTH_CLEAR) : undefined],
    ['wrap_info', res.wrapInfo ? hashedJson(res.wrapInfo, hash) : undefined],
    ['warnings', res.warnings?.length ? JSON.stringify(res.warnings) : undefined],
  ]);
}

/** `{"key":value,…}` from JSON texts, leaving out the undefined ones. */
function jsonObject(entries: [string, string | undefined][]): string {
  let out = '';
  for (const [k, v] of entries) if (v !== undefined) out += `${out ? ',' : ''}"${k}":${v}`;
  return `{${out}}`;
}
