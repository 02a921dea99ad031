/** Middleware: one JSON log line per request, once it is answered (request id, function, method, mount, path pattern, status, ms). */
import type { MiddlewareHandler } from 'hono';
import { logInfo } from '../../log';

export function accessLog(): MiddlewareHandler {
  return async function accessLogMiddleware(c, next) {
    const started = performance.now();
    await next();
    const log = c.get('scope').log;
    log.status = c.res.status;
    log.duration_ms = Math.round((performance.now() - started) * 100) / 100;
    logInfo('request', log);
  };
}
