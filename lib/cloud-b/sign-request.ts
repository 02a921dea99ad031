/**
 * Signed RPC requests of the cloud-B APIs (signature version 1.0): every parameter, sorted by
 * name and percent-encoded (RFC 3986), is signed as `METHOD&%2F&<encoded canonical query>` with
 * HMAC-SHA1 under `<secret>&`.
 */
import { createHmac, randomUUID } from 'node:crypto';

export function percentEncode(v: string): string {
  return encodeURIComponent(v).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .filter((k) => k !== 'Signature')
    .sort()
    .map((k) => `${percentEncode(k)}=${percentEncode(params[k]!)}`)
    .join('&');
}

export function signature(method: string, params: Record<string, string>, secret: string): string {
  const toSign = `${method}&${percentEncode('/')}&${percentEncode(canonicalQuery(params))}`;
  return createHmac('sha1', `${secret}&`).update(toSign).digest('base64');
}

export interface AccessCredentials {
  accessKeyId: string;
  accessKeySecret: string;
  securityToken?: string;
}

/** The full parameter set of one call, signed. */
export function signedParams(
  method: string,
  version: string,
  action: string,
  params: Record<string, string>,
  creds: AccessCredentials,
  now: Date = new Date(),
): Record<string, string> {
  const all: Record<string, string> = {
    ...params,
    Action: action,
    Version: version,
    Format: 'JSON',
    AccessKeyId: creds.accessKeyId,
    SignatureMethod: 'HMAC-SHA1',
    SignatureVersion: '1.0',
    SignatureNonce: randomUUID(),
    Timestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ...(creds.securityToken ? { SecurityToken: creds.securityToken } : {}),
  };
  return { ...all, Signature: signature(method, all, creds.accessKeySecret) };
}
