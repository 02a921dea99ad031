/**
 * What the audit log records of an answer, taken from the answer itself before it is rendered:
 * the envelope's parts (data, lease, auth, wrap_info, warnings), or a raw body (a Vault-shaped
 * JSON answer recorded as its parsed data; any other body as its HMAC with its type).
 */
import type { AuditResponse } from '../../audit/auditor';
import type { MountRef } from '../path';
import type { Answer } from './call';

export function auditResponse(answer: Answer, mount: MountRef): AuditResponse {
  const clear = mount.auditClearResponseKeys ? { clearKeys: mount.auditClearResponseKeys } : {};
  const r = answer.result;
  if (answer.kind === 'raw') return rawAudit(answer, clear);
  if (answer.kind === 'envelope' && (answer.wrapInfo || answer.topLevel)) {
    // Wrapped: the wrap_info alone; at the top level: the envelope's parts, its warnings included.
    return {
      status: answer.status,
      ...(!answer.wrapInfo && r.data !== undefined ? { data: r.data } : {}),
      ...(!answer.wrapInfo && r.lease ? { leaseId: r.lease.id } : {}),
      ...(!answer.wrapInfo && r.auth ? { auth: r.auth } : {}),
      ...(answer.wrapInfo ? { wrapInfo: answer.wrapInfo } : {}),
      ...(answer.warnings.length ? { warnings: answer.warnings } : {}),
      ...clear,
    };
  }
  // What the client got: its status, and every warning it was sent.
  const warnings = answer.kind === 'envelope' ? answer.warnings : [];
  return {
    status: answer.status,
    ...(r.data !== undefined ? { data: r.data } : {}),
    ...(r.lease ? { leaseId: r.lease.id } : {}),
    ...(r.auth ? { auth: r.auth } : {}),
    ...(warnings.length ? { warnings } : {}),
    ...clear,
  };
}

function rawAudit(answer: Extract<Answer, { kind: 'raw' }>, clear: { clearKeys?: readonly string[] }): AuditResponse {
  const status = answer.status;
  if (typeof answer.body === 'string' && answer.contentType.startsWith('application/json')) {
    const parsed = parseJson(answer.body);
    if (isEnvelope(parsed)) {
      return {
        status,
        data: parsed.data ?? undefined,
        ...(parsed.lease_id ? { leaseId: parsed.lease_id } : {}),
        ...(parsed.auth ? { auth: parsed.auth } : {}),
        ...(parsed.wrap_info ? { wrapInfo: parsed.wrap_info } : {}),
        ...(parsed.warnings ? { warnings: parsed.warnings } : {}),
        ...clear,
      };
    }
    if (parsed !== undefined) return { status, data: parsed, ...clear };
  }
  return { status, raw: { body: answer.body, contentType: answer.contentType } };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A handler's raw answer that is itself an envelope (an unwrapped response). */
interface EnvelopeLike {
  request_id: string;
  data?: unknown;
  lease_id?: string;
  auth?: unknown;
  wrap_info?: unknown;
  warnings?: string[];
}

function isEnvelope(v: unknown): v is EnvelopeLike {
  return typeof v === 'object' && v !== null && 'request_id' in v && 'wrap_info' in v;
}
