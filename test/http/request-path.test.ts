/**
 * The decoded request path every function routes and authorises on: decoded once, `%2F` is a
 * `/`, and the spellings that would name an item under another name are refused with a 400.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../lib/errors';
import { decodedPath, hasPretty } from '../../lib/http/request-path';

const base = 'http://127.0.0.1:8200';

function refusal(path: string): string {
  try {
    decodedPath(base + path);
  } catch (e) {
    expect(e).toBeInstanceOf(HttpError);
    expect((e as HttpError).status).toBe(400);
    return (e as HttpError).messages.join('; ');
  }
  throw new Error(`accepted: ${path}`);
}

describe('decodedPath', () => {
  it.each([
    ['/v1/sys/health', '/v1/sys/health'],
    ['/v1/pki/roles%2Fprod', '/v1/pki/roles/prod'],
    ['/v1/pki/roles/a%20b', '/v1/pki/roles/a b'],
    ['/v1/kv/%C3%BCn%C3%AF', '/v1/kv/ünï'],
    ['/v1/kv/a%25b', '/v1/kv/a%b'],
    ['/v1/kv/a..b', '/v1/kv/a..b'],
    ['/v1/kv/.hidden/x', '/v1/kv/.hidden/x'],
    ['/v1/kv/x.', '/v1/kv/x.'],
    ['/v1/pki/roles/', '/v1/pki/roles/'],
    ['/v1/sys/health?pretty', '/v1/sys/health'],
  ])('%s is %s', (path, decoded) => {
    expect(decodedPath(base + path)).toBe(decoded);
  });

  it('takes a URL as well as a string', () => {
    expect(decodedPath(new URL(base + '/v1/a%2Fb'))).toBe('/v1/a/b');
  });

  it('decodes once: an encoded percent stays a percent sign', () => {
    expect(decodedPath(base + '/v1/kv/%252F')).toBe('/v1/kv/%2F');
  });

  it('literal dot segments are resolved by the URL parser before it sees them', () => {
    expect(decodedPath(base + '/v1/kv/a/../b')).toBe('/v1/kv/b');
    expect(decodedPath(base + '/v1/kv/./b')).toBe('/v1/kv/b');
  });

  it.each([
    ['an encoded ".." segment', '/v1/kv/a%2F..%2Fsys', /"\." or "\.\." segment/],
    ['an encoded "." segment', '/v1/kv/a%2F.%2Fb', /"\." or "\.\." segment/],
    ['a trailing encoded ".."', '/v1/kv/a%2F..', /"\." or "\.\." segment/],
    ['a NUL', '/v1/kv/a%00b', /non-printable/],
    ['a newline', '/v1/kv/a%0Ab', /non-printable/],
    ['DEL', '/v1/kv/a%7Fb', /non-printable/],
    ['a C1 control', '/v1/kv/a%C2%85b', /non-printable/],
    ['a line separator', '/v1/kv/a%E2%80%A8b', /non-printable/],
    ['a lone percent sign', '/v1/kv/a%zzb', /malformed percent-encoding/],
    ['an invalid UTF-8 sequence', '/v1/kv/%C3', /malformed percent-encoding/],
  ])('refuses %s', (_name, path, message) => {
    expect(refusal(path)).toMatch(message);
  });
});

describe('hasPretty', () => {
  it.each([
    ['/v1/sys/health?pretty', true],
    ['/v1/sys/health?pretty=false', true],
    ['/v1/sys/health?a=1&pretty', true],
    ['/v1/sys/health', false],
    ['/v1/sys/health?prettier', false],
  ])('%s: %s', (path, pretty) => {
    expect(hasPretty(base + path)).toBe(pretty);
    expect(hasPretty(new URL(base + path))).toBe(pretty);
  });
});
