/**
 * Step 6: the answer on the wire. The envelope (`request_id`, `lease_id`, `renewable`,
 * `lease_duration`, `data`, `wrap_info`, `warnings`, `auth`), with the data at the top level too
 * where the result asks for it, or the wrap_info alone; a raw body of its type; 204 when there
 * is nothing to say. The result's headers go on every kind of answer; the edge's own
 * `x-request-id` and the body's content type win over a header of the same name.
 */
import { envelope, jsonResponse, wrappedEnvelope } from '../envelope';
import type { Result } from '../path';
import type { Answer, Call } from './call';

/** The result's headers (names lower-cased), then the edge's own, which win. */
export function responseHeaders(result: Result, requestId: string, contentType?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) out[k.toLowerCase()] = v;
  out['x-request-id'] = requestId;
  if (contentType) out['content-type'] = contentType;
  return out;
}

/** The JSON body of an envelope answer. */
export function envelopeBody(requestId: string, answer: Extract<Answer, { kind: 'envelope' }>): unknown {
  if (answer.wrapInfo) return wrappedEnvelope(requestId, answer.wrapInfo, answer.warnings);
  const body = envelope(requestId, answer.result, answer.warnings);
  return answer.topLevel ? { ...body, ...answer.result.data } : body;
}

export function render(call: Call, answer: Answer): Response {
  const id = call.scope.id;
  switch (answer.kind) {
    case 'raw':
      return new Response(typeof answer.body === 'string' ? answer.body : new Uint8Array(answer.body), {
        status: answer.status,
        headers: responseHeaders(answer.result, id, answer.contentType),
      });
    case 'empty':
      return new Response(null, { status: answer.status, headers: responseHeaders(answer.result, id) });
    case 'envelope':
      return jsonResponse(
        answer.status,
        envelopeBody(id, answer),
        call.scope.pretty,
        responseHeaders(answer.result, id, 'application/json'),
      );
  }
}
