import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { checkBoundClaims, getClaim, globMatch, mappedMetadata, pointerGet, userName } from '../../../lib/auth/jwt/claims';

const eks = {
  sub: 'system:serviceaccount:payments:api',
  'kubernetes.io': { namespace: 'payments', serviceaccount: { name: 'api', uid: 'u-1' }, pod: { name: 'api-1' } },
  groups: ['a', 'b'],
  run: 42,
  flag: true,
  'a/b': 'slash',
  'm~n': 'tilde',
};

describe('claims by name or JSON pointer', () => {
  it('reads nested claims through pointers, with ~1 and ~0 escapes', () => {
    expect(getClaim(eks, '/kubernetes.io/namespace')).toBe('payments');
    expect(getClaim(eks, '/kubernetes.io/serviceaccount/name')).toBe('api');
    expect(getClaim(eks, '/a~1b')).toBe('slash');
    expect(getClaim(eks, '/m~0n')).toBe('tilde');
    expect(getClaim(eks, '/groups/1')).toBe('b');
    expect(getClaim(eks, '/kubernetes.io/nope/x')).toBeUndefined();
    expect(pointerGet(eks, '/__proto__')).toBeUndefined();
    expect(getClaim(eks, 'constructor')).toBeUndefined();
  });
  it('reads numbers as their integer text, as the reference', () => {
    expect(getClaim(eks, 'run')).toBe('42');
  });
});

describe('globMatch (the reference go-glob: * only)', () => {
  it.each([
    ['refs/heads/*', 'refs/heads/main', true],
    ['refs/heads/*', 'refs/tags/v1', false],
    ['*', '', true],
    ['repo:org/*:ref:*', 'repo:org/app:ref:refs/heads/main', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'acb', false],
    ['ab*ba', 'aba', false],
    ['exact', 'exact', true],
    ['exact?', 'exactX', false],
  ])('%s ~ %s = %s', (p, v, want) => expect(globMatch(p, v)).toBe(want));
});

describe('bound claims', () => {
  const gh = { repository: 'org/repo', ref: 'refs/heads/main', groups: ['dev', 'ops'], ok: true };
  it('match exactly, any value of a list, any element of a list claim', () => {
    expect(() => checkBoundClaims(gh, { repository: 'org/repo' }, false)).not.toThrow();
    expect(() => checkBoundClaims(gh, { repository: ['x/y', 'org/repo'] }, false)).not.toThrow();
    expect(() => checkBoundClaims(gh, { groups: 'ops' }, false)).not.toThrow();
    expect(() => checkBoundClaims(gh, { ok: 'true' }, false)).not.toThrow();
  });
  it('match with globs only in glob mode', () => {
    expect(() => checkBoundClaims(gh, { ref: 'refs/heads/*' }, true)).not.toThrow();
    expect(() => checkBoundClaims(gh, { ref: 'refs/heads/*' }, false)).toThrow(/does not match/);
  });
  it('refuse a missing or different claim, naming the claim and not its value', () => {
    expect(() => checkBoundClaims(gh, { environment: 'prod' }, false)).toThrow('claim "environment" is missing');
    const e = (() => {
      try {
        checkBoundClaims(gh, { repository: 'org/other' }, false);
      } catch (x) {
        return x as Error;
      }
    })();
    expect(e).toBeInstanceOf(InvalidInput);
    expect(e!.message).toBe('claim "repository" does not match any associated bound claim values');
  });
});

describe('user claim and metadata', () => {
  it('names the user by claim or pointer', () => {
    expect(userName(eks, 'sub', false)).toBe('system:serviceaccount:payments:api');
    expect(userName(eks, '/kubernetes.io/serviceaccount/name', true)).toBe('api');
    expect(() => userName(eks, 'email', false)).toThrow('claim "email" not found in token');
    expect(() => userName(eks, 'groups', false)).toThrow('could not be converted to string');
  });
  it('maps claims and pointers to metadata keys, leaving out absent ones', () => {
    expect(
      mappedMetadata(eks, {
        '/kubernetes.io/namespace': 'namespace',
        '/kubernetes.io/serviceaccount/name': 'service_account',
        missing: 'x',
        run: 'run',
      }),
    ).toEqual({
      namespace: 'payments',
      service_account: 'api',
      run: '42',
    });
    expect(() => mappedMetadata(eks, { groups: 'g' })).toThrow('error converting claim "groups" to string');
  });
});
