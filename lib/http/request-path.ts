/**
 * The decoded request path: the one path every function routes and authorises on, and the
 * local dispatcher routes by. Decoded once, as the reference servers do (`%2F` is a `/`, so
 * `roles%2Fprod` is `roles/prod` for routing, policy and storage alike). Refused with 400: a
 * non-printable character, and a `.` or `..` segment (the URL parser resolves literal ones,
 * so these come only from an encoded `/`, and would name an item under another spelling).
 */
import { BadRequest } from '../errors';

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators.
const NON_PRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

export function decodedPath(url: string | URL): string {
  const raw = (typeof url === 'string' ? new URL(url) : url).pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new BadRequest('malformed percent-encoding in the request path');
  }
  if (NON_PRINTABLE.test(decoded)) throw new BadRequest('the request path contains a non-printable character');
  if (DOT_SEGMENT.test(decoded)) throw new BadRequest('the request path contains a "." or ".." segment');
  return decoded;
}

export function hasPretty(url: string | URL): boolean {
  return (typeof url === 'string' ? new URL(url) : url).searchParams.has('pretty');
}
