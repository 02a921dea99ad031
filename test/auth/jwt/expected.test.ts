import { describe, expect, it } from 'vitest';
import { checkExpected, type Expected } from '../../../lib/auth/jwt/expected';

const NOW = 1_800_000_000;
const base: Expected = { issuer: '', subject: '', audiences: [], clockSkewLeeway: 60, expirationLeeway: 150, notBeforeLeeway: 150 };
const check =
  (claims: Record<string, unknown>, e: Partial<Expected> = {}) =>
  () =>
    checkExpected(claims, { ...base, ...e }, NOW);

describe('registered claims (the reference validator)', () => {
  it('accepts a token valid now', () => {
    expect(check({ iat: NOW - 10, exp: NOW + 300 })).not.toThrow();
  });
  it('refuses an expired token beyond the clock skew leeway, accepts one within it', () => {
    expect(check({ iat: NOW - 1000, exp: NOW - 61 })).toThrow('token is expired');
    expect(check({ iat: NOW - 1000, exp: NOW - 59 })).not.toThrow();
    expect(check({ iat: NOW - 1000, exp: NOW - 1 }, { clockSkewLeeway: -1 })).toThrow('token is expired');
  });
  it('refuses a token not yet valid (nbf) or issued in the future (iat) beyond the leeway', () => {
    expect(check({ nbf: NOW + 61, exp: NOW + 600 })).toThrow('token not yet valid');
    expect(check({ nbf: NOW + 30, exp: NOW + 600 })).not.toThrow();
    expect(check({ nbf: NOW - 5, iat: NOW + 120, exp: NOW + 600 })).toThrow('token issued in the future');
  });
  it('refuses a token with no time claim at all; derives exp from iat plus expiration_leeway', () => {
    expect(check({ sub: 'x' })).toThrow('no issued at (iat), not before (nbf), or expiration time (exp)');
    expect(check({ iat: NOW - 100 })).not.toThrow();
    expect(check({ iat: NOW - 300 })).toThrow('token is expired');
    expect(check({ iat: NOW - 300 }, { expirationLeeway: 600 })).not.toThrow();
  });
  it('refuses a non-numeric time claim', () => {
    expect(check({ exp: 'soon' })).toThrow('invalid exp claim');
  });
  it('checks issuer and subject when bound', () => {
    expect(check({ iss: 'https://a', exp: NOW + 9 }, { issuer: 'https://b' })).toThrow('invalid issuer (iss) claim');
    expect(check({ sub: 'x', exp: NOW + 9 }, { subject: 'y' })).toThrow('invalid subject (sub) claim');
    expect(check({ iss: 'https://a', sub: 'x', exp: NOW + 9 }, { issuer: 'https://a', subject: 'x' })).not.toThrow();
  });
  it('audiences: any bound one matches; a token with an aud is refused by a role with none', () => {
    expect(check({ aud: ['x', 'sts.amazonaws.com'], exp: NOW + 9 }, { audiences: ['sts.amazonaws.com'] })).not.toThrow();
    expect(check({ aud: 'sts.amazonaws.com', exp: NOW + 9 }, { audiences: ['other'] })).toThrow('does not match any expected audience');
    expect(check({ exp: NOW + 9 }, { audiences: ['a'] })).toThrow('does not match');
    expect(check({ aud: 'a', exp: NOW + 9 })).toThrow('audience claim found in JWT but no audiences bound to the role');
    expect(check({ exp: NOW + 9 })).not.toThrow();
  });
});
