/** One HTTP(S) exchange over a keep-alive agent, for the lean AWS clients. */
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** The exchange took longer than its timeout (a network error: the caller may retry). */
export class RequestTimeout extends Error {
  constructor() {
    super('request timed out');
    this.name = 'RequestTimeout';
  }
}

export class Endpoint {
  readonly url: URL;
  private readonly agent: HttpAgent | HttpsAgent;

  constructor(endpoint: string) {
    this.url = new URL(endpoint);
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  send(method: string, path: string, headers: Record<string, string>, body: string, timeoutMs = 10_000): Promise<HttpReply> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        {
          hostname: this.url.hostname,
          port: this.url.port,
          path,
          method,
          agent: this.agent,
          headers: Object.assign({}, headers, { 'content-length': String(Buffer.byteLength(body)) }),
        },
        (res) => {
          const parts: Buffer[] = [];
          res.on('data', (d: Buffer) => parts.push(d));
          res.on('error', reject);
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(parts).toString('utf8') }));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(new RequestTimeout()));
      req.on('error', reject);
      req.end(body);
    });
  }
}

export function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: string } | undefined)?.code;
  return e instanceof RequestTimeout || (e instanceof Error && (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT'));
}
