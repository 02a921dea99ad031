/**
 * Step 5: the answer the handler's result makes. Raw results (PEM, DER, Vault-shaped JSON) and
 * empty ones (204) answer as they are; an envelope answer carries the handler's warnings and,
 * on an answer with a body, the warning about unrecognised parameters. When the request asked
 * for it (X-Vault-Wrap-TTL), an answer with `data` or `auth` is kept under a new single-use
 * wrapping token (deps.wrapping) and the caller gets `wrap_info` instead, as Vault does; errors,
 * empty and raw answers are never wrapped, nor is a HEAD (nobody would read the token).
 */
import { envelope } from '../envelope';
import type { Result } from '../path';
import { requestedWrapTtl } from '../wrap-ttl';
import type { Answer, Call } from './call';

export async function wrap(call: Call, result: Result): Promise<Answer> {
  if (result.raw) return rawAnswer(call, result);
  const warnings = [...(result.warnings ?? [])];
  const hasBody = result.data !== undefined || result.auth !== undefined || result.lease !== undefined || warnings.length > 0;
  if (!hasBody) return { kind: 'empty', status: result.status ?? 204, result };
  if (call.ignoredWarning) warnings.push(call.ignoredWarning);
  const ttl = requestedWrapTtl(call.c.req.raw.headers);
  const wrappable = result.data !== undefined || result.auth !== undefined;
  if (ttl === undefined || call.c.req.method === 'HEAD' || !wrappable) {
    return { kind: 'envelope', status: result.status ?? 200, result, warnings, topLevel: result.topLevelData === true && !!result.data };
  }
  const accessor = result.auth?.accessor;
  const principal = call.principal;
  const wrapInfo = await call.deps.wrapping.wrap({
    response: JSON.stringify(envelope(call.scope.id, result, warnings)),
    path: call.full.replace(/\/+$/, ''),
    ttl,
    displayName: principal?.displayName ?? '',
    ...(principal?.boundCidrs ? { boundCidrs: principal.boundCidrs } : {}),
    ...(typeof accessor === 'string' && accessor ? { wrappedAccessor: accessor } : {}),
  });
  return { kind: 'envelope', status: 200, result, warnings, wrapInfo, topLevel: false };
}

function rawAnswer(call: Call, result: Result): Answer {
  const raw = result.raw!;
  const declared = call.spec.answers;
  const contentType = raw.contentType ?? (declared?.length === 1 ? declared[0] : undefined);
  if (contentType === undefined)
    throw new Error(`${call.spec.pattern}: a raw answer names no content type and its path declares no single one`);
  return { kind: 'raw', status: raw.status ?? 200, result, body: raw.body, contentType };
}
