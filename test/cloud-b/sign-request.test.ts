/** Signed RPC requests of cloud-B (lib/cloud-b/sign-request.ts): signature version 1.0, HMAC-SHA1 over the canonical query. */
import { describe, expect, it } from 'vitest';
import { canonicalQuery, percentEncode, signature, signedParams } from '../../lib/cloud-b/sign-request';

/** The provider's published example of a signed DescribeRegions call (AccessKeySecret "testsecret"). */
const EXAMPLE = {
  AccessKeyId: 'testid',
  Action: 'DescribeRegions',
  Format: 'XML',
  SignatureMethod: 'HMAC-SHA1',
  SignatureNonce: '3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf',
  SignatureVersion: '1.0',
  Timestamp: '2016-02-23T12:46:24Z',
  Version: '2014-05-26',
};

describe('percent-encoding (RFC 3986)', () => {
  it('leaves unreserved characters and encodes the rest, including what encodeURIComponent keeps', () => {
    expect(percentEncode('AZaz09-_.~')).toBe('AZaz09-_.~');
    expect(percentEncode("a b*c!d'e(f)g")).toBe('a%20b%2Ac%21d%27e%28f%29g');
    expect(percentEncode('/:=&+')).toBe('%2F%3A%3D%26%2B');
    expect(percentEncode('é')).toBe('%C3%A9');
  });
});

describe('the signature', () => {
  it("matches the provider's published example", () => {
    expect(canonicalQuery(EXAMPLE)).toBe(
      'AccessKeyId=testid&Action=DescribeRegions&Format=XML&SignatureMethod=HMAC-SHA1&SignatureNonce=3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf&SignatureVersion=1.0&Timestamp=2016-02-23T12%3A46%3A24Z&Version=2014-05-26',
    );
    expect(signature('GET', EXAMPLE, 'testsecret')).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
  });
  it('sorts the parameters and leaves out a Signature already present', () => {
    expect(canonicalQuery({ b: '2', a: '1', Signature: 'x' })).toBe('a=1&b=2');
    expect(signature('GET', { ...EXAMPLE, Signature: 'old' }, 'testsecret')).toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
    expect(signature('POST', EXAMPLE, 'testsecret')).not.toBe('OLeaidS1JvxuMvnyHOwuJ+uX5qY=');
  });
});

describe('signedParams', () => {
  it('adds the common parameters, a fresh nonce and a timestamp in seconds, and signs them all', () => {
    const now = new Date(Date.UTC(2030, 0, 2, 3, 4, 5, 678));
    const p = signedParams('POST', '2015-05-01', 'CreateUser', { UserName: 'u1' }, { accessKeyId: 'AK', accessKeySecret: 'secret' }, now);
    expect(p).toMatchObject({
      UserName: 'u1',
      Action: 'CreateUser',
      Version: '2015-05-01',
      Format: 'JSON',
      AccessKeyId: 'AK',
      SignatureMethod: 'HMAC-SHA1',
      SignatureVersion: '1.0',
      Timestamp: '2030-01-02T03:04:05Z',
    });
    expect(p.SecurityToken).toBeUndefined();
    expect(p.Signature).toBe(signature('POST', p, 'secret'));
    const again = signedParams(
      'POST',
      '2015-05-01',
      'CreateUser',
      { UserName: 'u1' },
      { accessKeyId: 'AK', accessKeySecret: 'secret' },
      now,
    );
    expect(again.SignatureNonce).not.toBe(p.SignatureNonce);
  });
  it('carries a security token, signed with the rest', () => {
    const p = signedParams('GET', 'v', 'A', {}, { accessKeyId: 'AK', accessKeySecret: 's', securityToken: 'tok' });
    expect(p.SecurityToken).toBe('tok');
    expect(p.Signature).toBe(signature('GET', p, 's'));
  });
});
