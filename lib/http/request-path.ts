/** The decoded request path, refused when it holds a non-printable character. */
import { BadRequest } from '../errors';

// C0 and C1 controls, DEL, and the Unicode line/paragraph separators.
const NON_PRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function decodedPath(url: string): string {
  const raw = new URL(url).pathname;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new BadRequest('malformed percent-encoding in the request path');
  }
  if (NON_PRINTABLE.test(decoded)) throw new BadRequest('the request path contains a non-printable character');
  return decoded;
}

export function hasPretty(url: string): boolean {
  return new URL(url).searchParams.has('pretty');
}
