/**
 * The one place the cloud engines talk HTTP: node:https/node:http (not fetch), so a request
 * can trust an extra CA given in configuration (a private endpoint, or the test fakes), has a
 * hard time limit and a bounded response size. Nothing here logs; callers sanitise errors.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { CloudError } from './cloud-error';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Extra trusted CA certificates (PEM), added to the system roots. */
  ca?: string;
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const MAX_RESPONSE = 4 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 8000;

let extraRoots: { ca: string; roots: string[] } | undefined;

async function withSystemRoots(ca: string): Promise<string[]> {
  if (extraRoots?.ca === ca) return extraRoots.roots;
  const { rootCertificates } = await import('node:tls');
  const roots = [...rootCertificates, ca];
  extraRoots = { ca, roots };
  return roots;
}

function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_RESPONSE) {
        res.destroy(new Error('response too large'));
        return;
      }
      chunks.push(c);
    });
    res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.on('error', reject);
  });
}

/** Sends one request; network failures and time-outs become CloudError(kind "unreachable"). */
export async function send(r: HttpRequest): Promise<HttpResponse> {
  let url: URL;
  try {
    url = new URL(r.url);
  } catch {
    throw new CloudError('unreachable', 0, 'invalid endpoint URL');
  }
  const secure = url.protocol === 'https:';
  if (!secure && url.protocol !== 'http:') throw new CloudError('unreachable', 0, 'endpoint URL must be http or https');
  const ca = secure && r.ca ? await withSystemRoots(r.ca) : undefined;
  const body = r.body === undefined ? undefined : Buffer.from(r.body, 'utf8');
  const headers = { ...(r.headers ?? {}), ...(body ? { 'content-length': String(body.length) } : {}) };
  const timeout = r.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise<HttpResponse>((resolve, reject) => {
    const fail = (e: Error) =>
      reject(new CloudError('unreachable', 0, `${url.host} could not be reached (${(e as NodeJS.ErrnoException).code ?? e.message})`));
    const options = { method: r.method, headers, timeout, ...(ca ? { ca } : {}) };
    const req = (secure ? httpsRequest : httpRequest)(url, options, (res) => {
      readBody(res).then((text) => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }), fail);
    });
    const timer = setTimeout(() => req.destroy(new Error('timed out')), timeout);
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

/** Parses a JSON body, or undefined when it is not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    return undefined;
  }
}
