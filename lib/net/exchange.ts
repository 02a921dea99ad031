/**
 * One HTTP(S) exchange over a keep-alive agent: the one place the project speaks HTTP as a
 * client (the lean AWS clients of lib/aws, and the Latchkey client of lib/client). A timeout is
 * a RequestTimeout, a network error its callers may retry.
 */
import { request as httpRequest, type Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

/** The exchange took longer than its timeout (a network error: the caller may retry). */
export class RequestTimeout extends Error {
  constructor() {
    super('request timed out');
    this.name = 'RequestTimeout';
  }
}

export interface Exchanged {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Exchange {
  /** The origin (scheme, host, port); the path and query are `path`. */
  url: URL;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  agent: HttpAgent | HttpsAgent;
  timeoutMs: number;
}

export function exchange(x: Exchange): Promise<Exchanged> {
  const send = x.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      {
        hostname: x.url.hostname,
        port: x.url.port,
        path: x.path,
        method: x.method,
        agent: x.agent,
        headers: x.body ? { ...x.headers, 'content-length': String(x.body.length) } : x.headers,
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
      },
    );
    req.setTimeout(x.timeoutMs, () => req.destroy(new RequestTimeout()));
    req.on('error', reject);
    req.end(x.body);
  });
}
