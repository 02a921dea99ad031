/** One HTTP(S) exchange over a keep-alive agent, for the lean AWS clients. */
import { Agent as HttpAgent, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { exchange, RequestTimeout } from '../net/exchange';

export { RequestTimeout };

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export class Endpoint {
  readonly url: URL;
  private readonly agent: HttpAgent | HttpsAgent;

  constructor(endpoint: string) {
    this.url = new URL(endpoint);
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  async send(method: string, path: string, headers: Record<string, string>, body: string, timeoutMs = 10_000): Promise<HttpReply> {
    const r = await exchange({ url: this.url, path, method, headers, body: Buffer.from(body), agent: this.agent, timeoutMs });
    return { status: r.status, headers: r.headers, text: r.body.toString('utf8') };
  }
}

export function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: string } | undefined)?.code;
  return e instanceof RequestTimeout || (e instanceof Error && (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ETIMEDOUT'));
}
