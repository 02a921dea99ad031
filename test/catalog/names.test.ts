/** Table tests: catalog key and node/service/check names, and unsigned integers, as the reference catalog takes them. */
import { describe, expect, it } from 'vitest';
import { checkKey, checkName, parseUint } from '../../lib/catalog/names';

describe('key names', () => {
  it.each(['a', 'app/config', 'dir/', 'a b', 'x:y@z', 'ünï', 'a..b', '.hidden/x', 'k'.repeat(512)])('accepts %j', (k) => {
    expect(checkKey(k)).toBe(k);
  });
  it.each([
    ['', 'Missing key name'],
    ['/abs', "must not begin with a '/'"],
    ['a/../b', 'traversal'],
    ['..', 'traversal'],
    ['a/./b', 'traversal'],
    ['a\\b', 'traversal'],
    ['a\u0085b', 'non-printable'],
    ['k'.repeat(513), 'longer than 512 bytes'],
    ['é'.repeat(257), 'longer than 512 bytes'],
  ])('refuses %j', (k, message) => {
    expect(() => checkKey(k)).toThrow(message);
  });
  it('takes the empty prefix when listing', () => {
    expect(checkKey('', true)).toBe('');
  });
});

describe('node, service and check names', () => {
  it.each(['web-1', 'db.internal', 'svc:8080', 'ünï', 'n'.repeat(256)])('accepts %j', (n) => expect(checkName(n, 'node name')).toBe(n));
  it.each([
    ['', 'Missing node name'],
    ['a/b', "must not contain '/'"],
    ['a\tb', 'non-printable'],
    ['n'.repeat(257), 'longer than 256 bytes'],
  ])('refuses %j', (n, message) => expect(() => checkName(n, 'node name')).toThrow(message));
});

describe('unsigned integers', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    [' 7 ', 7],
    ['9007199254740991', 2 ** 53 - 1],
  ])('reads %j', (raw, n) => expect(parseUint(raw, 'flags')).toBe(n));
  it.each(['', '-1', '1.5', '1e3', 'abc', '9007199254740992', '99999999999999999'])('refuses %j', (raw) =>
    expect(() => parseUint(raw, 'flags')).toThrow('Invalid flags'),
  );
});
