/**
 * Signature checking of the cloud-B fake, written apart from the engine's signer: the
 * canonical string is rebuilt from the received parameters (query and form body) and compared.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const enc = (v: string) =>
  encodeURIComponent(v).replace(/!/g, '%21').replace(/'/g, '%27').replace(/\(/g, '%28').replace(/\)/g, '%29').replace(/\*/g, '%2A');

export function expectedSignature(method: string, params: Record<string, string>, secret: string): string {
  const canonical = Object.entries(params)
    .filter(([k]) => k !== 'Signature')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${enc(k)}=${enc(v)}`)
    .join('&');
  return createHmac('sha1', secret + '&')
    .update(`${method.toUpperCase()}&%2F&${enc(canonical)}`)
    .digest('base64');
}

export function signatureMatches(method: string, params: Record<string, string>, secret: string): boolean {
  const want = Buffer.from(expectedSignature(method, params, secret));
  const got = Buffer.from(params.Signature ?? '');
  return want.length === got.length && timingSafeEqual(want, got);
}
