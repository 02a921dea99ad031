/**
 * Sends a login's signed GetCallerIdentity request to this mount's own STS endpoint (never to a
 * host the request names), with the client's headers — Host included — and body unchanged, and
 * reads the caller's identity from STS's XML answer. A hard time limit, a bounded answer, no
 * redirects followed. Errors name the STS error code only: STS's messages may quote the
 * canonical request, and nothing of the signed request is echoed or logged.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { DomainError, InvalidInput } from '../../domain-errors';
import type { CheckedRequest } from './login-request';

export interface CallerIdentity {
  arn: string;
  userId: string;
  account: string;
}

/** STS could not be reached, or answered nothing usable (the edge answers 502). */
export class StsUnreachable extends DomainError {}

export const STS_TIMEOUT_MS = 5000;
const MAX_ANSWER = 64 * 1024;

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, e: string) => {
    if (e.startsWith('#x')) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith('#')) return String.fromCodePoint(Number(e.slice(1)));
    return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[e] ?? '';
  });
}

/** The text of the one `<name>` element in `xml`, or undefined when there is none or several. */
function element(xml: string, name: string): string | undefined {
  const re = new RegExp(`<${name}>([^<]*)</${name}>`, 'g');
  const found = [...xml.matchAll(re)];
  return found.length === 1 ? decodeXml(found[0]?.[1] ?? '').trim() : undefined;
}

export function parseCallerIdentity(xml: string): CallerIdentity {
  const text = xml.trim();
  const result = /<GetCallerIdentityResponse[\s>][\s\S]*<GetCallerIdentityResult>([\s\S]*?)<\/GetCallerIdentityResult>/.exec(text);
  if (!(text.startsWith('<?xml') || text.startsWith('<GetCallerIdentityResponse')) || !result)
    throw new StsUnreachable('error making upstream request: the STS answer is not a GetCallerIdentity response');
  const inner = result[1] ?? '';
  const arn = element(inner, 'Arn');
  const userId = element(inner, 'UserId');
  const account = element(inner, 'Account');
  if (!arn || !userId || !account)
    throw new StsUnreachable('error making upstream request: the STS answer lacks the caller ARN, user id or account');
  return { arn, userId, account };
}

/** The error code of an STS error answer (letters and dots only), for a message safe to return. */
function errorCode(xml: string): string {
  const code = element(xml, 'Code') ?? '';
  return /^[A-Za-z.]{1,64}$/.test(code) ? code : 'unknown';
}

interface Answer {
  status: number;
  text: string;
}

function readAnswer(res: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_ANSWER) res.destroy(new Error('answer too large'));
      else chunks.push(c);
    });
    res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', reject);
  });
}

/** Node takes a repeated header as a list, and Host only as one string. */
function outboundHeaders(headers: Record<string, string[]>): Record<string, string | string[]> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.length === 1 ? (v[0] ?? '') : v]));
}

function exchange(endpoint: URL, req: CheckedRequest, timeoutMs: number): Promise<Answer> {
  const send = endpoint.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const out = send(
      {
        protocol: endpoint.protocol,
        hostname: endpoint.hostname,
        port: endpoint.port,
        path: '/',
        method: req.method,
        headers: { ...outboundHeaders(req.headers), 'content-length': String(req.body.length) },
        // SNI and the certificate check are for the endpoint's host, whatever Host header was signed.
        ...(endpoint.protocol === 'https:' ? { servername: endpoint.hostname } : {}),
        agent: false,
      },
      (res) => readAnswer(res).then(resolve, reject),
    );
    const timer = setTimeout(() => out.destroy(new Error('timed out')), timeoutMs);
    out.on('close', () => clearTimeout(timer));
    out.on('error', reject);
    out.end(req.body);
  });
}

export async function callerIdentity(endpoint: string, req: CheckedRequest, timeoutMs = STS_TIMEOUT_MS): Promise<CallerIdentity> {
  let answer: Answer;
  try {
    answer = await exchange(new URL(endpoint), req, timeoutMs);
  } catch {
    throw new StsUnreachable('error making upstream request: STS could not be reached or did not answer in time');
  }
  if (answer.status !== 200) {
    const message = `error making upstream request: STS answered ${answer.status} ${errorCode(answer.text)}`;
    // STS refusing the request (a bad or expired signature, an unknown key) is the client's; anything else is STS's.
    throw answer.status >= 400 && answer.status < 500 ? new InvalidInput(message) : new StsUnreachable(message);
  }
  return parseCallerIdentity(answer.text);
}
