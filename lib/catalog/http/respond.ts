/** Catalog responses: JSON (minimised unless ?pretty), raw values, plain-text errors, and the catalog headers. */
import { randomUUID } from 'node:crypto';
import type { CatalogReply } from './route';

export interface ResponseMeta {
  index?: number;
  defaultPolicy: 'allow' | 'deny';
  translate: boolean;
  filtered: boolean;
  requestId: string;
}

/** X-Catalog-* headers, each with its X-Consul-* twin that existing clients read. */
export function catalogHeaders(m: ResponseMeta): Record<string, string> {
  const own: Record<string, string> = { 'Default-ACL-Policy': m.defaultPolicy };
  if (m.index !== undefined) own.Index = String(m.index);
  if (m.translate) own['Translate-Addresses'] = 'true';
  if (m.filtered) own['Results-Filtered-By-ACLs'] = 'true';
  const out: Record<string, string> = { 'x-request-id': m.requestId, 'X-Consul-KnownLeader': 'true', 'X-Consul-LastContact': '0' };
  for (const [k, v] of Object.entries(own)) {
    out[`X-Catalog-${k}`] = v;
    out[`X-Consul-${k}`] = v;
  }
  return out;
}

export function replyResponse(reply: CatalogReply, pretty: boolean, headers: Record<string, string>): Response {
  const status = reply.status ?? 200;
  if (reply.raw) {
    return new Response(new Uint8Array(reply.raw.bytes), {
      status,
      headers: {
        ...headers,
        'content-type': reply.raw.contentType,
        'x-content-type-options': 'nosniff',
        'content-security-policy': 'sandbox',
      },
    });
  }
  if (reply.json === undefined) return new Response(null, { status, headers });
  return new Response(catalogJson(reply.json, pretty), { status, headers: { ...headers, 'content-type': 'application/json' } });
}

/**
 * JSON text in which a bigint (KV flags above 2^53 - 1) is a plain JSON number, as the
 * reference writes uint64s: it is stringified as a marked string, then the marks are removed.
 */
export function catalogJson(value: unknown, pretty: boolean): string {
  let mark: string | undefined;
  const replacer = (_k: string, v: unknown) => {
    if (typeof v !== 'bigint') return v;
    mark ??= randomUUID();
    return `${mark}:${v.toString()}`;
  };
  // As lib/http/envelope.ts jsonText writes it (4 spaces and a newline with ?pretty).
  const text = pretty ? `${JSON.stringify(value, replacer, 4)}\n` : JSON.stringify(value, replacer);
  return mark ? text.replace(new RegExp(`"${mark}:(\\d+)"`, 'g'), '$1') : text;
}

export function errorText(status: number, message: string, headers: Record<string, string>): Response {
  return new Response(message, { status, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' } });
}
