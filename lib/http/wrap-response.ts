/**
 * `X-Vault-Wrap-TTL` (or `X-Svc-Wrap-TTL`) on any request: the response is wrapped and the
 * caller gets `wrap_info` instead (lib/sys/wrapping.ts keeps it). The header is checked before
 * the handler runs, so a bad TTL has no side effects.
 *
 * Wrapped: envelope responses with `data` or `auth`. Not wrapped, answered as they are:
 * errors, empty (204) responses, and raw (non-envelope) responses such as PEM, DER or the
 * reference-shaped JSON of sys/health and sys/seal-status, as the reference server does not
 * wrap its non-logical endpoints either.
 */
import { SYSTEM_MAX_LEASE_TTL } from '../config';
import type { Deps } from '../deps';
import { parseDuration } from '../duration';
import { BadRequest } from '../errors';
import { wrapResponse } from '../sys/wrapping';
import type { Principal } from './auth';
import { envelope, jsonText, topLevelBody, wrappedEnvelope } from './envelope';
import type { Result } from './path';

export interface WrapContext {
  headers: Headers;
  deps: Deps;
  /** The request path relative to /v1/. */
  path: string;
  requestId: string;
  pretty: boolean;
  principal?: Principal;
  /** The request's input (body of a write), for sys/wrapping/wrap. */
  input: Record<string, unknown>;
  /** The envelope warning about ignored parameters, if any. */
  warning?: string | undefined;
  /** Never wrap (a HEAD, whose body is dropped); a bad wrap TTL is still refused. */
  noWrap?: boolean;
}

/** The requested wrap TTL in seconds, or undefined; 400 when it is not a duration in 1s..768h. */
export function requestedWrapTtl(headers: Headers): number | undefined {
  const raw = headers.get('x-svc-wrap-ttl') || headers.get('x-vault-wrap-ttl');
  if (!raw) return undefined;
  const ttl = parseDuration(raw);
  if (ttl === undefined) throw new BadRequest('invalid wrap TTL header: expected a duration such as "5m" or a number of seconds');
  if (ttl < 1) throw new BadRequest('invalid wrap TTL header: the wrap TTL must be at least 1s');
  if (ttl > SYSTEM_MAX_LEASE_TTL) {
    throw new BadRequest(`invalid wrap TTL header: the wrap TTL must not exceed the system maximum of ${SYSTEM_MAX_LEASE_TTL}s`);
  }
  return ttl;
}

/** Request bodies handed to the handlers that take arbitrary input (sys/wrapping/wrap), by request. */
const bodies = new WeakMap<Headers, Record<string, unknown>>();
const bodyTaken = new WeakSet<Headers>();

/** The whole request body of the current request (every key, declared or not). */
export function requestBody(headers: Headers): Record<string, unknown> {
  bodyTaken.add(headers);
  return bodies.get(headers) ?? {};
}

/** Runs the handler; wraps its response when the request asked for it (else renders top-level data, envelope.ts). */
export async function withWrapping(ctx: WrapContext, run: () => Promise<Result>): Promise<Result> {
  const ttl = requestedWrapTtl(ctx.headers);
  bodies.set(ctx.headers, ctx.input);
  const result = await run();
  const warnings = [...(result.warnings ?? [])];
  if (ctx.warning && !bodyTaken.has(ctx.headers)) warnings.push(ctx.warning);
  if (ttl === undefined || ctx.noWrap || result.raw || (result.data === undefined && result.auth === undefined)) {
    const top = result.raw ? undefined : topLevelBody(ctx.requestId, result, warnings);
    if (!top) return result;
    const status = result.status ? { status: result.status } : {};
    return { raw: { body: jsonText(top, ctx.pretty), contentType: 'application/json', ...status }, ...headersOf(result) };
  }
  const accessor = result.auth?.accessor;
  const info = await wrapResponse(ctx.deps, {
    response: JSON.stringify(envelope(ctx.requestId, result, warnings)),
    path: ctx.path.replace(/\/+$/, ''),
    ttl,
    displayName: ctx.principal?.displayName ?? '',
    ...(ctx.principal?.boundCidrs ? { boundCidrs: ctx.principal.boundCidrs } : {}),
    ...(typeof accessor === 'string' && accessor ? { wrappedAccessor: accessor } : {}),
  });
  return {
    raw: { body: jsonText(wrappedEnvelope(ctx.requestId, info, warnings), ctx.pretty), contentType: 'application/json' },
    ...headersOf(result),
  };
}

/** The result's own response headers, kept when the answer is re-rendered here. */
function headersOf(result: Result): Pick<Result, 'headers'> {
  return result.headers ? { headers: result.headers } : {};
}
