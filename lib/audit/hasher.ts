/**
 * The audit HMAC: every string value of an audited request or response is replaced by
 * `hmac-sha256:<hex>` under one key per deployment, generated once (at init, or by the first
 * function that audits) and sealed in the table under its own KMS scope, `audit`. An operator
 * finds a value in the log by hashing it with `sys/audit-hash/<device>` (the same key).
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ExistsError } from '../domain-errors';
import type { SealedValue, Sealer } from '../keys/sealed';
import type { Partition } from '../store/store';

export const AUDIT_SCOPE = 'audit';
const KEY = 'config/audit-hmac-key';
const PREFIX = 'hmac-sha256:';

export class AuditHasher {
  private key?: Promise<Buffer>;

  constructor(
    private readonly part: Partition,
    private readonly sealer: Sealer,
  ) {}

  /** Creates the key once (the first writer wins; everyone uses the winner's). */
  async ensureKey(): Promise<Buffer> {
    this.key ??= this.loadOrCreate();
    this.key.catch(() => (this.key = undefined));
    return this.key;
  }

  private async loadOrCreate(): Promise<Buffer> {
    const found = await this.part.get<SealedValue>(KEY);
    if (found) return this.sealer.open(found.value, KEY);
    const sealed = await this.sealer.seal(randomBytes(32), AUDIT_SCOPE, KEY);
    try {
      await this.part.put(KEY, { ...sealed }, { ifAbsent: true });
    } catch (e) {
      if (!(e instanceof ExistsError)) throw e;
    }
    const winner = await this.part.get<SealedValue>(KEY);
    if (!winner) throw new Error('the audit key was not stored');
    return this.sealer.open(winner.value, KEY);
  }

  async hash(value: string): Promise<string> {
    return hashWith(await this.ensureKey(), value);
  }

  /** A function that hashes with the loaded key, for the many values of one record. */
  async hashFn(): Promise<(value: string) => string> {
    const key = await this.ensureKey();
    return (value) => hashWith(key, value);
  }
}

export function hashWith(key: Buffer, value: string): string {
  return PREFIX + createHmac('sha256', key).update(value).digest('hex');
}

/** hashWith as a JSON string literal (`"hmac-sha256:<hex>"`: nothing in it needs escaping). */
export function hashLiteral(key: Buffer, value: string): string {
  return `"${PREFIX}${createHmac('sha256', key).update(value).digest('hex')}"`;
}

/**
 * The JSON text of `value` with every string replaced by its HMAC: in objects and arrays at any
 * depth, except the values of top-level keys listed in `clear` (the mount's non-HMAC keys).
 * Numbers, booleans and null stay as they are; bytes are hashed as their base64 text. Written in
 * one walk, building no hashed copy (the audit log's hot path), so a `__proto__` key is only
 * text. Otherwise as JSON.stringify: `toJSON` is honoured (a Date is hashed as its ISO text),
 * undefined and functions are left out of objects and are null in arrays.
 */
export function hashedJson(value: unknown, hash: (s: string) => string, clear: readonly string[] = []): string {
  return jsonWith(value, (s) => quote(hash(s)), clear);
}

/**
 * hashedJson with `literal` giving each string's JSON text, already quoted: the audit records
 * pass `"hmac-sha256:<hex>"` (no escaping to check) or, on a log_raw device, the string itself.
 */
export function jsonWith(value: unknown, literal: (s: string) => string, clear: readonly string[] = []): string {
  const walk = (v: unknown, depth: number): string | undefined => {
    if (typeof v === 'string') return literal(v);
    if (v instanceof Uint8Array) return literal(Buffer.from(v).toString('base64'));
    if (typeof v === 'bigint') return quote(v.toString());
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return walk((v as { toJSON: () => unknown }).toJSON(), depth);
    if (depth > 32) return literal(deepText(v));
    if (Array.isArray(v)) return `[${v.map((x) => walk(x, depth + 1) ?? 'null').join(',')}]`;
    let out = '';
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      const text = depth === 0 && clear.includes(k) ? JSON.stringify(x) : walk(x, depth + 1);
      if (text !== undefined) out += `${out ? ',' : ''}${quote(k)}:${text}`;
    }
    return `{${out}}`;
  };
  return walk(value, 0) ?? 'null';
}

/**
 * A value past the walk's depth, recorded as its JSON text. One nested too deeply for
 * JSON.stringify (its recursion overflows the stack; no request input gets near that, see
 * http/json-limits.ts, but stored data written before those limits might) is recorded as a fixed
 * text instead, so the record is still written rather than the request failing.
 */
function deepText(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch (e) {
    if (e instanceof RangeError) return TOO_DEEP;
    throw e;
  }
}

export const TOO_DEEP = '(nested too deeply to record)';

/** A JSON string literal; the HMACs and most keys need no escaping. */
export function quote(s: string): string {
  return SAFE.test(s) ? `"${s}"` : JSON.stringify(s);
}

const SAFE = /^[\w:.\-/ ]*$/;
