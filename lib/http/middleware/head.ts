/**
 * Middleware: a HEAD is its GET without the body (Hono routes it as the GET), with the GET's
 * length, so a keep-alive client knows the answer is complete and keeps its connection.
 */
import type { MiddlewareHandler } from 'hono';

export function headWithoutBody(): MiddlewareHandler {
  return async function headMiddleware(c, next) {
    await next();
    if (c.req.method === 'HEAD') c.res = await headOf(c.res);
  };
}

export async function headOf(res: Response): Promise<Response> {
  const headers = new Headers(res.headers);
  // A 204 has no content, so no length (RFC 9110 section 8.6), as its GET has none.
  if (res.status !== 204 && !headers.has('content-length'))
    headers.set('content-length', String(res.body ? (await res.arrayBuffer()).byteLength : 0));
  return new Response(null, { status: res.status, statusText: res.statusText, headers });
}
