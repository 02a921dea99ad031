/** Table tests for the catalog's pure rules: names, numbers, blocking parameters, settings. */
import { describe, expect, it } from 'vitest';
import { blockingParams, MAX_WAIT_MS } from '../../lib/catalog/http/blocking';
import { catalogToken } from '../../lib/catalog/http/token';
import { checkKey, checkName, parseUint } from '../../lib/catalog/names';
import { parseCatalogSettings } from '../../lib/catalog/settings';

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

describe('blocking parameters', () => {
  const q = (s: string) => new URLSearchParams(s);
  it.each([
    ['', undefined],
    ['index=0', undefined],
    ['wait=5s', undefined],
    ['index=7', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=5s', { index: 7, waitMs: 5000 }],
    ['index=7&wait=1m', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=10m', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=100ms', { index: 7, waitMs: 1000 }],
    ['index=7&wait=', { index: 7, waitMs: MAX_WAIT_MS }],
  ])('%j -> %j', (s, want) => expect(blockingParams(q(s))).toEqual(want));
  it.each(['index=x', 'index=-3', 'index=3&wait=soon', 'index=3&wait=-5s'])('refuses %j', (s) => expect(() => blockingParams(q(s))).toThrow(/Invalid/));
});

describe('token sources', () => {
  const h = (o: Record<string, string>) => new Headers(o);
  it.each([
    [{ 'x-catalog-token': 'a', 'x-consul-token': 'b', authorization: 'Bearer c' }, 'token=d', 'a'],
    [{ 'x-consul-token': 'b', authorization: 'Bearer c' }, 'token=d', 'b'],
    [{ authorization: 'bearer c' }, 'token=d', 'c'],
    [{ authorization: 'Basic Zm9v' }, 'token=d', 'd'],
    [{}, 'token=d', 'd'],
    [{}, '', undefined],
    [{ 'x-catalog-token': '' }, 'token=', undefined],
  ])('%j %j -> %j', (headers, query, want) => expect(catalogToken(h(headers), new URLSearchParams(query))).toBe(want));
});

describe('settings', () => {
  it('defaults to ACLs on, deny, dc1, no translation; ACLs off (then allow) only when asked', () => {
    expect(parseCatalogSettings({}, {})).toEqual({ aclEnabled: true, defaultPolicy: 'deny', translateWanAddrs: false, datacenter: 'dc1' });
    expect(parseCatalogSettings({ acl: { enabled: false } }, {})).toMatchObject({ aclEnabled: false, defaultPolicy: 'allow' });
  });
  it('reads the file and lets CATALOG_DEFAULT_TOKEN override its token', () => {
    const s = parseCatalogSettings({ acl: { enabled: true, default_policy: 'deny', tokens: { default: 'from-file' } }, translate_wan_addrs: true, datacenter: 'eu-1' }, { CATALOG_DEFAULT_TOKEN: 'from-env' });
    expect(s).toEqual({ aclEnabled: true, defaultPolicy: 'deny', defaultToken: 'from-env', translateWanAddrs: true, datacenter: 'eu-1' });
  });
  it('refuses an unknown default policy or datacenter name', () => {
    expect(() => parseCatalogSettings({ acl: { default_policy: 'maybe' } }, {})).toThrow('allow or deny');
    expect(() => parseCatalogSettings({ datacenter: 'a/b' }, {})).toThrow('not a name');
  });
});
