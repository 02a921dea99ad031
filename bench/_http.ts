/**
 * The benchmarks' HTTP calls, through the shared client's transport (lib/client/transport.ts:
 * node:http with keep-alive connections). undici's fetch costs the client process more CPU per
 * request than a lean server spends answering (measured: it tops out near 1,300–1,600 req/s
 * against a server that does nothing, node:http near 5,000–10,000), so with fetch the figures
 * would measure the client. Every server in a comparison is driven by this same transport.
 */
import { httpTransport } from '../lib/client/transport';

export interface Reply {
  status: number;
  body: Buffer;
}

const transport = httpTransport({ maxSockets: 64 });

export async function send(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  const r = await transport({
    method,
    url,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
  return { status: r.status, body: r.body };
}

/** A call that must succeed: throws with the answer on any status >= 300. */
export function caller(url: string, method: string, headers: Record<string, string> = {}, body?: unknown): () => Promise<Reply> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return async () => {
    const r = await send(url, method, headers, text);
    if (r.status >= 300) throw new Error(`${method} ${url} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
    return r;
  };
}

/** Median of a few numbers (interleaved rounds of a comparison). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
