/**
 * How the client reaches a Latchkey: one request in, status, headers and body out.
 *
 * `httpTransport` speaks HTTP/1.1 over node:http or node:https with keep-alive connections (the
 * CLI, the agent, the benchmarks: undici's fetch costs a client more CPU per request than a lean
 * server spends answering, see bench/_http.ts), trusting `caCert` (PEM) beside the system roots
 * when given. `appTransport` hands the request to an in-process app's `fetch` (Hono's
 * `app.request`, the test helpers): the same client code, without a socket.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { exchange, RequestTimeout } from '../net/exchange';

export interface TransportRequest {
  method: string;
  /** The whole URL, query string included. */
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface TransportReply {
  status: number;
  headers: Headers;
  body: Buffer;
}

export type Transport = (r: TransportRequest) => Promise<TransportReply>;

export interface HttpTransportOptions {
  /** A PEM bundle to trust beside the system roots (a private CA's root). */
  caCert?: string;
  /** Milliseconds before a request is abandoned (default 60 s). */
  timeoutMs?: number;
  /** Open sockets per host (default 64). */
  maxSockets?: number;
}

function headersOf(raw: Record<string, string | string[] | undefined>): Headers {
  const h = new Headers();
  for (const [k, v] of Object.entries(raw)) {
    if (Array.isArray(v)) for (const one of v) h.append(k, one);
    else if (v !== undefined) h.set(k, v);
  }
  return h;
}

export function httpTransport(o: HttpTransportOptions = {}): Transport {
  const http = new HttpAgent({ keepAlive: true, maxSockets: o.maxSockets ?? 64 });
  const https = new HttpsAgent({
    keepAlive: true,
    maxSockets: o.maxSockets ?? 64,
    ...(o.caCert ? { ca: [...rootCertificates, o.caCert] } : {}),
  });
  const timeout = o.timeoutMs ?? 60_000;
  return async (r) => {
    const url = new URL(r.url);
    const secure = url.protocol === 'https:';
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    try {
      const x = await exchange({
        url,
        path: url.pathname + url.search,
        method: r.method,
        headers: r.headers,
        ...(body ? { body } : {}),
        agent: secure ? https : http,
        timeoutMs: timeout,
      });
      return { status: x.status, headers: headersOf(x.headers), body: x.body };
    } catch (e) {
      if (e instanceof RequestTimeout) throw new Error(`no answer from ${url.host} within ${timeout} ms`);
      throw e;
    }
  };
}

/** An in-process app (anything with Hono's `request(url, init)` or a fetch function). */
export function appTransport(app: { request(url: string, init: RequestInit): Response | Promise<Response> }): Transport {
  return async (r) => {
    const res = await app.request(r.url, {
      method: r.method,
      headers: r.headers,
      ...(r.body !== undefined ? { body: r.body } : {}),
    });
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
  };
}
