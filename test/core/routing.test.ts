/** Which function serves a decoded request path: sys, the catalog, or the engine of a mount. */
import { describe, expect, it } from 'vitest';
import { parseMounts } from '../../lib/config';
import { CATALOG_PREFIXES, functionFor, SYS_PREFIXES } from '../../lib/routing';

const mounts = parseMounts([
  { path: 'pki', type: 'pki' },
  { path: 'pki_int', type: 'pki' },
  { path: 'ssh-client', type: 'ssh' },
  { path: 'azure', type: 'cloud-a' },
]);

describe('functionFor', () => {
  it.each([
    ['/v1/sys/health', 'sys'],
    ['/v1/sys', 'sys'],
    ['/v1/auth/token/lookup-self', 'sys'],
    ['/v1/kv/app/config', 'catalog'],
    ['/v1/catalog/services', 'catalog'],
    ['/v1/agent/members', 'catalog'],
    ['/v1/health/service/web', 'catalog'],
    ['/v1/status/leader', 'catalog'],
    ['/v1/pki/issue/web', 'pki'],
    ['/v1/pki_int/ca/pem', 'pki'],
    ['/v1/pki', 'pki'],
    ['/v1/ssh-client/sign/r', 'ssh'],
    ['/v1/azure/creds/r', 'cloud-a'],
  ])('%s is served by %s', (path, fn) => {
    expect(functionFor(path, mounts)).toBe(fn);
  });

  it.each([
    ['an unknown mount', '/v1/nope/x'],
    ['a prefix of a mount name', '/v1/pk/issue/web'],
    ['a mount name with more after it', '/v1/pki2/issue/web'],
    ['no /v1/ prefix', '/sys/health'],
    ['another version', '/v2/sys/health'],
    ['the root', '/'],
    ['an empty first segment', '/v1//sys/health'],
  ])('%s is served by none', (_name, path) => {
    expect(functionFor(path, mounts)).toBeUndefined();
  });

  it('matches the first segment exactly, in the case it is written in', () => {
    expect(functionFor('/v1/SYS/health', mounts)).toBeUndefined();
    expect(functionFor('/v1/PKI/issue/web', mounts)).toBeUndefined();
  });

  it('serves sys and catalog prefixes even with no mounts, and no mount with none', () => {
    for (const p of SYS_PREFIXES) expect(functionFor(`/v1/${p}/x`, [])).toBe('sys');
    for (const p of CATALOG_PREFIXES) expect(functionFor(`/v1/${p}/x`, [])).toBe('catalog');
    expect(functionFor('/v1/pki/issue/web', [])).toBeUndefined();
  });

  it('the prefix lists do not overlap', () => {
    expect(SYS_PREFIXES.filter((p) => CATALOG_PREFIXES.includes(p))).toEqual([]);
  });
});
