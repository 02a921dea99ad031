/** The decoded request path, refused when it holds a non-printable character. */
import { BadRequest } from '../errors';

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators.
const NON_PRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function decodedPath(url: string | URL): string {
  const raw = (typeof url === 'string' ? new URL(url) : url).pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new BadRequest('malformed percent-encoding in the request path');
  }
  if (NON_PRINTABLE.test(decoded)) throw new BadRequest('the request path contains a non-printable character');
  return decoded;
}

export function hasPretty(url: string | URL): boolean {
  return (typeof url === 'string' ? new URL(url) : url).searchParams.has('pretty');
}
