/**
 * Middleware: the request's audit trail. The surface fills in what it learns (mount, operation,
 * token, input, principal) and writes the request record right before its handler acts (no
 * device takes it: no action, a 500). Once the request is answered, this writes the request
 * record if no handler ran (a refusal, a miss), then the response record: what the surface took
 * from its answer, or the error. If neither can be written, the answer becomes a 500.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AuditRequest, AuditResponse, Auditor } from '../../audit/auditor';
import { httpErrorOf, type HttpError } from '../../errors';
import { logError } from '../../log';

export interface AuditTrail {
  /** Whether an audit device records this request: surfaces skip audit-only work when not. */
  enabled: boolean;
  request: AuditRequest;
  /** Set by the surface from its answer; a failure is recorded from its status and error. */
  response?: AuditResponse;
  error?: string;
  /** Writes the request record now (before a handler acts); the trail writes it otherwise. */
  record(): Promise<void>;
  recorded: boolean;
}

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by auditTrail on every request. */
    audit: AuditTrail;
  }
}

const OPERATIONS: Record<string, string> = { GET: 'read', HEAD: 'read', LIST: 'list', POST: 'update', PUT: 'update', DELETE: 'delete' };

/** `failed` answers the request when its records cannot be written (the surface's error renderer). */
export function auditTrail(
  auditor: Auditor | undefined,
  failed: (err: HttpError, c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  return async function auditTrailMiddleware(c, next) {
    const trail = newTrail(c, auditor);
    c.set('audit', trail);
    await next();
    if (!auditor?.enabled) return;
    try {
      if (!trail.recorded) await auditor.request(trail.request);
      trail.recorded = true;
      await auditor.response(trail.request, trail.response ?? { status: c.res.status }, trail.error);
    } catch (e) {
      const err = httpErrorOf(e);
      logError('audit-fault', c.get('scope').log, err.cause ?? err);
      c.res = await failed(err, c);
    }
  };
}

function newTrail(c: Context, auditor: Auditor | undefined): AuditTrail {
  const scope = c.get('scope');
  const userAgent = c.req.header('user-agent');
  const trail: AuditTrail = {
    enabled: auditor?.enabled === true,
    request: {
      id: scope.id,
      operation: OPERATIONS[c.req.method] ?? c.req.method.toLowerCase(),
      mountType: '',
      mountPoint: '',
      path: scope.path ?? scope.url.pathname.slice(0, 512),
      ...(userAgent ? { userAgent: userAgent.slice(0, 512) } : {}),
      ...(scope.remoteAddress ? { remoteAddress: scope.remoteAddress } : {}),
    },
    recorded: false,
    async record() {
      if (!auditor?.enabled || trail.recorded) return;
      await auditor.request(trail.request);
      trail.recorded = true;
    },
  };
  return trail;
}
