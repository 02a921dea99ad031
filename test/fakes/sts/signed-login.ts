/**
 * The body of an aws auth iam login, built as hvac's `auth.aws.iam_login` builds it: a
 * GetCallerIdentity POST to https://sts.amazonaws.com/ signed with SigV4 (every header given is
 * signed), its URL, body and headers base64-encoded, the headers as JSON lists. Options make the
 * malformed and forged variants the refusal tests need.
 */
import { signSigV4 } from '../sigv4';
import type { StsCredentials } from './server';

export const GET_CALLER_IDENTITY = 'Action=GetCallerIdentity&Version=2011-06-15';

export interface SignedLoginOptions {
  role?: string;
  /** X-Vault-AWS-IAM-Server-ID, signed */
  serverId?: string;
  /** headers added after signing (not signed) */
  unsigned?: Record<string, string>;
  /** the Host header signed (sts.amazonaws.com); null leaves it out of the list sent, as Go clients do */
  host?: string | null;
  url?: string;
  method?: string;
  body?: string;
  region?: string;
  date?: Date;
}

export const b64 = (s: string) => Buffer.from(s).toString('base64');

export function signedLogin(credentials: StsCredentials, o: SignedLoginOptions = {}): Record<string, string> {
  const body = o.body ?? GET_CALLER_IDENTITY;
  const headers: Record<string, string> = {
    'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8',
    Host: o.host ?? 'sts.amazonaws.com',
    'Content-Length': String(Buffer.byteLength(body)),
    ...(o.serverId !== undefined ? { 'X-Vault-AWS-IAM-Server-ID': o.serverId } : {}),
    ...(credentials.sessionToken ? { 'X-Amz-Security-Token': credentials.sessionToken } : {}),
  };
  const req = { method: o.method ?? 'POST', url: '/', headers, body: Buffer.from(body) };
  signSigV4(req, credentials, { region: o.region ?? 'us-east-1', service: 'sts', ...(o.date ? { date: o.date } : {}) });
  const sent: Record<string, string[]> = {};
  for (const [k, v] of Object.entries({ ...req.headers, ...(o.unsigned ?? {}) })) {
    if (o.host === null && k.toLowerCase() === 'host') continue;
    sent[k] = [v];
  }
  return {
    ...(o.role !== undefined ? { role: o.role } : {}),
    iam_http_request_method: o.method ?? 'POST',
    iam_request_url: b64(o.url ?? 'https://sts.amazonaws.com/'),
    iam_request_body: b64(body),
    iam_request_headers: b64(JSON.stringify(sent)),
  };
}
