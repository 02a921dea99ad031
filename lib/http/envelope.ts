/** The response envelope of sys and the engines, and the JSON writer with `?pretty`. */
import type { WrapInfo } from '../types';
import type { Result } from './path';

export interface Envelope {
  request_id: string;
  lease_id: string;
  renewable: boolean;
  lease_duration: number;
  data: Record<string, unknown> | null;
  wrap_info: WrapInfo | null;
  warnings: string[] | null;
  auth: Record<string, unknown> | null;
}

export function envelope(requestId: string, r: Result, warnings: string[]): Envelope {
  return {
    request_id: requestId,
    lease_id: r.lease?.id ?? '',
    renewable: r.lease?.renewable ?? false,
    lease_duration: r.lease?.duration ?? 0,
    data: r.data ?? null,
    wrap_info: null,
    warnings: warnings.length ? warnings : null,
    auth: r.auth ?? null,
  };
}

/** What a wrapped request answers: the wrap_info, no data or auth (lib/http/wrap-response.ts). */
export function wrappedEnvelope(requestId: string, info: WrapInfo, warnings: string[]): Envelope {
  return { ...envelope(requestId, {}, warnings), wrap_info: info };
}

export function jsonText(value: unknown, pretty: boolean): string {
  return pretty ? JSON.stringify(value, null, 4) + '\n' : JSON.stringify(value);
}

export function jsonResponse(status: number, value: unknown, pretty: boolean, headers: Record<string, string> = {}): Response {
  return new Response(jsonText(value, pretty), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

export function errorResponse(status: number, messages: string[], pretty: boolean, requestId: string): Response {
  return jsonResponse(status, { errors: messages }, pretty, { 'x-request-id': requestId });
}
