/**
 * Middleware: one JSON log line per request, once it is answered (request id, function, method,
 * mount, path pattern, status, ms), and the request's metrics from the same fields (metrics/requests.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { logInfo } from '../../log';
import { recordRequest } from '../../metrics/requests';

export function accessLog(): MiddlewareHandler {
  return async function accessLogMiddleware(c, next) {
    const started = performance.now();
    await next();
    const elapsed = performance.now() - started;
    const log = c.get('scope').log;
    log.status = c.res.status;
    log.duration_ms = Math.round(elapsed * 100) / 100;
    logInfo('request', log);
    const operation = c.get('audit')?.request.operation;
    recordRequest({ function: log.function, mount: log.mount, path: log.path, operation, status: c.res.status, seconds: elapsed / 1000 });
  };
}
