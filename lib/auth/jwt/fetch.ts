/**
 * The jwt method's outbound GET (a JWKS, an OIDC discovery document): http or https only, a
 * hard time limit, a bounded body, no redirects followed, and, when the config names one, only
 * that CA trusted (as the reference builds its pool from the given PEM alone). Nothing here logs.
 */
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { InvalidInput } from '../../domain-errors';

export const FETCH_TIMEOUT_MS = 5000;
export const MAX_DOCUMENT_BYTES = 512 * 1024;

export interface GetOptions {
  /** PEM CA certificate(s) to trust instead of the system roots. */
  ca?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A URL we may fetch: absolute http(s), with no credentials in it. */
export function checkFetchUrl(raw: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput(`${field} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInput(`${field} must be an http or https URL`);
  if (url.username || url.password) throw new InvalidInput(`${field} must not carry credentials`);
  return url;
}

export type FetchedDocument = { status: number; body: string };

/** GETs `url`; answers the status and body (at most MAX_DOCUMENT_BYTES). Fails with a message naming only the host. */
export function getDocument(url: URL, o: GetOptions = {}): Promise<FetchedDocument> {
  const timeout = o.timeoutMs ?? FETCH_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const settle = settleOnce(url, resolve, reject);
    const req = sendGet(url, o, timeout, settle);
    endOnTimeoutAbortOrError(req, o.signal, timeout, settle);
    req.end();
  });
}

/** How a fetch ends: the first of `succeed` and `fail` settles it, later calls do nothing. */
interface Settle {
  succeed(doc: FetchedDocument): void;
  /** Fails with a message naming only the host and `why`. */
  fail(why: string): void;
}

function settleOnce(url: URL, resolve: (doc: FetchedDocument) => void, reject: (e: Error) => void): Settle {
  let settled = false;
  return {
    succeed: (doc) => {
      if (settled) return;
      settled = true;
      resolve(doc);
    },
    fail: (why) => {
      if (settled) return;
      settled = true;
      reject(new InvalidInput(`${url.host} could not be fetched: ${why}`));
    },
  };
}

/** The GET itself, over https with the config's CA (when it names one) or plain http; its answer is read by `readBounded`. */
function sendGet(url: URL, o: GetOptions, timeout: number, settle: Settle): ClientRequest {
  const secure = url.protocol === 'https:';
  const options = { method: 'GET', headers: { accept: 'application/json' }, timeout, ...(secure && o.ca ? { ca: o.ca } : {}) };
  return (secure ? httpsRequest : httpRequest)(url, options, (res) => readBounded(res, settle));
}

/** Collects the answer's body; one larger than MAX_DOCUMENT_BYTES is cut off and fails. */
function readBounded(res: IncomingMessage, settle: Settle): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    size += c.length;
    if (size > MAX_DOCUMENT_BYTES) {
      res.destroy();
      settle.fail(`the answer is larger than ${MAX_DOCUMENT_BYTES} bytes`);
      return;
    }
    chunks.push(c);
  });
  res.on('end', () => settle.succeed({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
  res.on('error', () => settle.fail('the answer was cut off'));
}

/** Ends the request when the time limit passes, the caller aborts or the connection fails; cleans up when it closes. */
function endOnTimeoutAbortOrError(req: ClientRequest, signal: AbortSignal | undefined, timeout: number, settle: Settle): void {
  const timer = setTimeout(() => {
    req.destroy();
    settle.fail('timed out');
  }, timeout);
  const abort = () => {
    req.destroy();
    settle.fail('aborted');
  };
  signal?.addEventListener('abort', abort, { once: true });
  req.on('timeout', () => {
    req.destroy();
    settle.fail('timed out');
  });
  req.on('error', (e: NodeJS.ErrnoException) => settle.fail(e.code ?? 'connection failed'));
  req.on('close', () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  });
}

/** GETs a JSON object; a non-200 status or a body that is not a JSON object fails. */
export async function getJsonObject(url: URL, o: GetOptions = {}): Promise<Record<string, unknown>> {
  const { status, body } = await getDocument(url, o);
  if (status !== 200) throw new InvalidInput(`${url.host} answered ${status}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new InvalidInput(`${url.host} did not answer JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidInput(`${url.host} did not answer a JSON object`);
  return parsed as Record<string, unknown>;
}
