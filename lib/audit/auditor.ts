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
import { metrics } from '../metrics/catalog';
import { ServiceFault } from '../domain-errors';
import type { Principal } from '../types';
import type { AuditDevice } from './devices';
import { hashLiteral, jsonWith, type AuditHasher } from './hasher';

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

/** No audit device took the record: the request fails (500) and nothing changes. */
export class AuditUnavailable extends ServiceFault {
  constructor(cause?: unknown) {
    super('the audit log could not record the request', { cause });
  }
}

export class Auditor {
  private writerOf?: Promise<RecordWriter>;
  /** The writer once made (no await needed). */
  private ready?: RecordWriter;

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

  request(req: AuditRequest): Promise<void> {
    return this.emit('request', req, undefined, undefined);
  }

  response(req: AuditRequest, res: AuditResponse, error: string | undefined): Promise<void> {
    return this.emit('response', req, res, error);
  }

  private emit(kind: 'request' | 'response', req: AuditRequest, res: AuditResponse | undefined, error: string | undefined): Promise<void> {
    if (!this.devices.length) return Promise.resolve();
    const write = (w: RecordWriter) => w.write(kind, req, res, error, new Date(this.now()).toISOString());
    return this.ready ? write(this.ready) : this.writer().then(write);
  }

  /** The writer, made once the HMAC key is known (no key: the record cannot be written, fail closed). */
  private writer(): Promise<RecordWriter> {
    this.writerOf ??= this.hasher.ensureKey().then(
      (key) => (this.ready = new RecordWriter(this.devices, key)),
      (e: unknown) => {
        throw new AuditUnavailable(e);
      },
    );
    this.writerOf.catch(() => (this.writerOf = undefined));
    return this.writerOf;
  }
}

/**
 * Renders records and hands them to the devices: one line per device (raw or hashed); settles
 * once every device has written or failed, and succeeds when at least one wrote it. The
 * `"auth":…,"request":…` part is rendered once per request and mode: the response record
 * repeats the request record's, unless the request's operation changed after it was recorded.
 */
export class RecordWriter {
  private readonly heads = new Map<string, { raw?: string; hashed?: string; operation: string }>();
  private readonly hashes: RepeatedHashes;

  constructor(
    private readonly devices: readonly AuditDevice[],
    key: Buffer,
  ) {
    this.hashes = new RepeatedHashes((s) => hashLiteral(key, s));
  }

  /** Writes one record to every device (at least one must take it), counted by kind and outcome. */
  async write(
    kind: 'request' | 'response',
    req: AuditRequest,
    res: AuditResponse | undefined,
    error: string | undefined,
    time: string,
  ): Promise<void> {
    try {
      await this.writeAll(kind, req, res, error, time);
      metrics.audit.written.inc({ kind });
    } catch (e) {
      metrics.audit.failed.inc({ kind });
      throw e;
    }
  }

  private async writeAll(
    kind: 'request' | 'response',
    req: AuditRequest,
    res: AuditResponse | undefined,
    error: string | undefined,
    time: string,
  ): Promise<void> {
    // The response reuses the request's rendering unless the operation changed since (a write
    // let in as update that found its item gone is checked, and recorded, as a create).
    const kept = this.heads.get(req.id);
    const heads = kept?.operation === req.operation ? kept : { operation: req.operation };
    if (kind === 'request') this.heads.set(req.id, heads);
    else this.heads.delete(req.id);
    const lines: { raw?: string; hashed?: string } = {};
    const render = (mode: 'raw' | 'hashed'): string => {
      const lit = mode === 'raw' ? clear : this.hashes.forRecord();
      const head = (heads[mode] ??= `"auth":${authOf(req, lit)},"request":${requestOf(req, lit)}`);
      if (lines[mode] !== undefined) return lines[mode];
      if (kind === 'request') return (lines[mode] = `{"type":"request","time":"${time}",${head}}\n`);
      const tail = error ? `,"error":${JSON.stringify(error)}` : '';
      return (lines[mode] =
        `{"type":"response","time":"${time}",${head},"response":${responseOf(req, res ?? { status: 0 }, lit)}${tail}}\n`);
    };
    const mode = (d: AuditDevice) => (d.options.log_raw === 'true' ? 'raw' : 'hashed');
    if (this.devices.length === 1) {
      const d = this.devices[0]!;
      try {
        return await d.write(render(mode(d)));
      } catch (e) {
        throw new AuditUnavailable(e);
      }
    }
    const writes = this.devices.map(async (d) => d.write(render(mode(d))));
    const outcomes = await Promise.allSettled(writes);
    if (!outcomes.some((o) => o.status === 'fulfilled')) {
      throw new AuditUnavailable(outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected')?.reason);
    }
  }
}

/** A log_raw device's string literal: the value itself. */
const clear = (s: string) => JSON.stringify(s);

/**
 * HMACs by value (as the JSON literals the records hold): within a record every value is hashed once (a token and its accessor appear
 * twice, a CA in `issuing_ca` and `ca_chain`), and a value repeated within a record is kept for
 * the records that follow (a client's token and accessor, the issuing CA), up to a bound.
 * Values seen once (a private key, a serial) are not kept beyond their record.
 */
export class RepeatedHashes {
  static readonly MAX_ENTRIES = 256;
  static readonly MAX_LENGTH = 8192;
  private readonly kept = new Map<string, string>();

  constructor(private readonly hash: (s: string) => string) {}

  /** The hash for one record. */
  forRecord(): (s: string) => string {
    const seen = new Map<string, string>();
    return (s) => {
      let h = seen.get(s);
      if (h !== undefined) {
        this.keep(s, h);
        return h;
      }
      h = this.kept.get(s) ?? this.hash(s);
      seen.set(s, h);
      return h;
    };
  }

  get size(): number {
    return this.kept.size;
  }

  private keep(s: string, h: string): void {
    if (s.length > RepeatedHashes.MAX_LENGTH || this.kept.has(s)) return;
    // The oldest goes first (a Map iterates in insertion order).
    if (this.kept.size >= RepeatedHashes.MAX_ENTRIES) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(s, h);
  }
}

/** `{"client_token":…,"accessor":…,…}`: the token's secrets as HMACs, what it may do readable. */
function authOf(req: AuditRequest, lit: (s: string) => string): string {
  const p = req.principal;
  let out = req.clientToken ? `"client_token":${lit(req.clientToken)}` : '';
  if (p) {
    const policies = JSON.stringify(p.policies);
    out += `${out ? ',' : ''}"accessor":${lit(p.accessor)}`;
    if (p.displayName !== undefined) out += `,"display_name":${JSON.stringify(p.displayName)}`;
    out += `,"policies":${policies},"token_policies":${policies}`;
    const meta = p.snapshot?.meta;
    if (typeof meta === 'object' && meta !== null) out += `,"metadata":${JSON.stringify(meta)}`;
    out += ',"token_type":"service"';
  }
  return `{${out}}`;
}

function requestOf(req: AuditRequest, lit: (s: string) => string): string {
  let out = `{"id":${JSON.stringify(req.id)},"operation":${JSON.stringify(req.operation)},"mount_type":${JSON.stringify(req.mountType)},"mount_point":${JSON.stringify(req.mountPoint)}`;
  if (req.clientToken) out += `,"client_token":${lit(req.clientToken)}`;
  if (req.principal) out += `,"client_token_accessor":${lit(req.principal.accessor)}`;
  out += `,"path":${JSON.stringify(req.path)}`;
  if (req.data !== undefined) out += `,"data":${jsonWith(req.data, lit, req.clearKeys)}`;
  if (req.remoteAddress) out += `,"remote_address":${JSON.stringify(req.remoteAddress)}`;
  if (req.userAgent) out += `,"user_agent":${JSON.stringify(req.userAgent)}`;
  return `${out}}`;
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

function responseOf(req: AuditRequest, res: AuditResponse, lit: (s: string) => string): string {
  let out = `{"mount_type":${JSON.stringify(req.mountType)},"mount_point":${JSON.stringify(req.mountPoint)},"status_code":${JSON.stringify(res.status)}`;
  if (res.raw) {
    const body = typeof res.raw.body === 'string' ? res.raw.body : Buffer.from(res.raw.body).toString('base64');
    out += `,"data":{"http_content_type":${JSON.stringify(res.raw.contentType)},"http_raw_body":${lit(body)},"http_status_code":${res.status}}`;
  } else if (res.data !== undefined && res.data !== null) {
    out += `,"data":${jsonWith(res.data, lit, res.clearKeys)}`;
  }
  if (res.leaseId) out += `,"secret":${JSON.stringify({ lease_id: res.leaseId })}`;
  // A token's secrets (client_token, accessor) as HMACs; what it may do stays readable.
  if (res.auth) out += `,"auth":${jsonWith(res.auth, lit, AUTH_CLEAR)}`;
  if (res.wrapInfo) out += `,"wrap_info":${jsonWith(res.wrapInfo, lit)}`;
  if (res.warnings?.length) out += `,"warnings":${JSON.stringify(res.warnings)}`;
  return `${out}}`;
}
