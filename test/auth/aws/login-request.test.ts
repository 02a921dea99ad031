import { describe, expect, it } from 'vitest';
import { checkLoginRequest, parseHeaders } from '../../../lib/auth/aws/login-request';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const SIG = 'a'.repeat(64);
const auth = (signed = 'content-type;host;x-amz-date', scope = 'AKIAEXAMPLE/20240101/us-east-1/sts/aws4_request') =>
  `AWS4-HMAC-SHA256 Credential=${scope}, SignedHeaders=${signed}, Signature=${SIG}`;

function input(o: { method?: string; url?: string; body?: string; headers?: unknown } = {}) {
  return {
    method: o.method ?? 'POST',
    url: b64(o.url ?? 'https://sts.amazonaws.com/'),
    body: b64(o.body ?? 'Action=GetCallerIdentity&Version=2011-06-15'),
    headers:
      o.headers ??
      b64(
        JSON.stringify({
          'Content-Type': ['application/x-www-form-urlencoded'],
          Host: ['sts.amazonaws.com'],
          'X-Amz-Date': ['20240101T000000Z'],
          Authorization: [auth()],
        }),
      ),
  };
}

const rules = { stsRegion: 'us-east-1', serverIdHeaderValue: '' };

describe('checkLoginRequest', () => {
  it('answers the request to send: lower-case headers, the body bytes', () => {
    const out = checkLoginRequest(input(), rules);
    expect(out.method).toBe('POST');
    expect(out.headers.host).toEqual(['sts.amazonaws.com']);
    expect(out.body.toString()).toBe('Action=GetCallerIdentity&Version=2011-06-15');
  });

  it('takes the body parameters in either order', () => {
    expect(() => checkLoginRequest(input({ body: 'Version=2011-06-15&Action=GetCallerIdentity' }), rules)).not.toThrow();
  });

  it('fills a missing Host header from the URL, which is never a destination', () => {
    const headers = { Authorization: auth('host;x-amz-date'), 'X-Amz-Date': '20240101T000000Z' };
    expect(checkLoginRequest(input({ url: 'https://sts.us-east-1.amazonaws.com/', headers }), rules).headers.host).toEqual([
      'sts.us-east-1.amazonaws.com',
    ]);
  });

  const refusals: [string, Parameters<typeof input>[0], RegExp][] = [
    ['another method', { method: 'GET' }, /only 'POST'/],
    ['a lower-case method', { method: 'post' }, /only 'POST'/],
    ['another action', { body: 'Action=AssumeRole&Version=2011-06-15' }, /exactly the sts:GetCallerIdentity call/],
    ['another version', { body: 'Action=GetCallerIdentity&Version=2011-06-16' }, /exactly/],
    ['an extra parameter', { body: 'Action=GetCallerIdentity&Version=2011-06-15&RoleArn=x' }, /exactly/],
    ['a repeated parameter', { body: 'Action=GetCallerIdentity&Action=GetCallerIdentity' }, /exactly/],
    ['a value with =', { body: 'Action=GetCallerIdentity=x&Version=2011-06-15' }, /exactly/],
    ['a path', { url: 'https://sts.amazonaws.com/x' }, /root path/],
    ['a query', { url: 'https://sts.amazonaws.com/?Action=GetCallerIdentity' }, /root path/],
    ['another scheme', { url: 'file:///etc/passwd' }, /http\(s\)/],
    ['a header map that is a list', { headers: b64('["Host"]') }, /not a JSON object/],
    ['an empty header map', { headers: b64('{}') }, /missing iam_request_headers/],
    ['a header name with a space', { headers: b64('{"Bad Name":"x"}') }, /not a valid header name/],
    ['two Host headers', { headers: { Host: ['a', 'b'], Authorization: auth() } }, /more than one Host/],
    ['no Authorization', { headers: { Host: 'sts.amazonaws.com' } }, /exactly one Authorization/],
    [
      'another service',
      { headers: { Host: 'sts.amazonaws.com', Authorization: auth(undefined, 'AK/20240101/us-east-1/iam/aws4_request') } },
      /another service than sts/,
    ],
    ['host unsigned', { headers: { Host: 'sts.amazonaws.com', Authorization: auth('x-amz-date') } }, /Host header is not signed/],
    ['a wrong Content-Length', { headers: { Host: 'sts.amazonaws.com', 'Content-Length': '99', Authorization: auth() } }, /Content-Length/],
    [
      'a connection header',
      { headers: { Host: 'sts.amazonaws.com', Connection: 'keep-alive', Authorization: auth() } },
      /connection headers: connection/,
    ],
  ];
  for (const [what, o, message] of refusals) {
    it(`refuses ${what}`, () => {
      expect(() => checkLoginRequest(input(o), rules)).toThrow(message);
    });
  }

  it('refuses fields that are not strict base64', () => {
    expect(() => checkLoginRequest({ ...input(), url: 'aHR0cHM6Ly9zdHMuYW1hem9uYXdzLmNvbS8' }, rules)).toThrow(
      /base64 decode iam_request_url/,
    );
    expect(() => checkLoginRequest({ ...input(), body: 'QWN0aW9u PUdldA==' }, rules)).toThrow(/base64 decode iam_request_body/);
  });

  it('checks the server-id header: present, equal, signed', () => {
    const with_ = (value: string, signed: string) =>
      input({ headers: { Host: 'sts.amazonaws.com', 'X-Vault-AWS-IAM-Server-ID': value, Authorization: auth(signed) } });
    const r = { ...rules, serverIdHeaderValue: 'vault.example.com' };
    expect(() => checkLoginRequest(input(), r)).toThrow(/missing header/);
    expect(() => checkLoginRequest(with_('other', 'host;x-vault-aws-iam-server-id'), r)).toThrow(/not the one this server requires/);
    expect(() => checkLoginRequest(with_('vault.example.com', 'host;x-amz-date'), r)).toThrow(/not signed/);
    expect(() => checkLoginRequest(with_('vault.example.com', 'host;x-vault-aws-iam-server-id'), r)).not.toThrow();
  });

  it('refuses a signature for another region than the configured one', () => {
    expect(() => checkLoginRequest(input(), { ...rules, stsRegion: 'eu-west-1' })).toThrow(/signed for region us-east-1/);
  });
});

describe('parseHeaders', () => {
  it('takes an object, JSON or base64 JSON; string or list values; joins names case-insensitively', () => {
    expect(parseHeaders({ Host: 'a', host: ['b'] })).toEqual({ host: ['a', 'b'] });
    expect(parseHeaders('{"X-Amz-Date":["1"]}')).toEqual({ 'x-amz-date': ['1'] });
    expect(parseHeaders(b64('{"Content-Length":43}'))).toEqual({ 'content-length': ['43'] });
    expect(Object.getPrototypeOf(parseHeaders({ ['__proto__']: 'x' }))).toBeNull();
  });

  it('refuses control characters, nested values and too many headers', () => {
    expect(() => parseHeaders({ Host: 'a\nb' })).toThrow(/control characters/);
    expect(() => parseHeaders({ Host: [['a']] })).toThrow(/string or a list of strings/);
    expect(() => parseHeaders({ Host: [] })).toThrow(/string or a list of strings/);
    expect(() => parseHeaders(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`h${i}`, 'v'])))).toThrow(/more than 64/);
  });
});
