/**
 * awsLoginFields: the base64 fields of an aws iam login, signed as STS checks them (the
 * independent SigV4 verifier of test/fakes), the server-id header signed when asked, a session
 * token carried, the region's endpoint; and the server's own request check accepts them.
 */
import { describe, expect, it } from 'vitest';
import { parseHeaders } from '../../lib/auth/aws/login-request';
import { awsLoginFields, GET_CALLER_IDENTITY_BODY, stsHost } from '../../lib/client/aws-login';
import { verifySigV4 } from '../fakes/sigv4';

const creds = { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret/key+example' };
const decode = (s: string) => Buffer.from(s, 'base64').toString('utf8');

function verify(fields: Record<string, string>, region = 'us-east-1') {
  const headers = parseHeaders(fields.iam_request_headers!);
  return verifySigV4(
    {
      method: fields.iam_http_request_method!,
      url: new URL(decode(fields.iam_request_url!)).pathname,
      headers,
      body: Buffer.from(decode(fields.iam_request_body!)),
    },
    { service: 'sts', region, secretFor: (id) => (id === creds.accessKeyId ? creds.secretAccessKey : undefined) },
  );
}

describe('awsLoginFields', () => {
  it('signs GetCallerIdentity for sts.amazonaws.com, as STS verifies it', async () => {
    const f = await awsLoginFields({ credentials: creds });
    expect(f.iam_http_request_method).toBe('POST');
    expect(decode(f.iam_request_url!)).toBe('https://sts.amazonaws.com/');
    expect(decode(f.iam_request_body!)).toBe(GET_CALLER_IDENTITY_BODY);
    const v = verify(f);
    expect(v.ok, JSON.stringify(v)).toBe(true);
    if (v.ok) expect(v.signedHeaders).toEqual(expect.arrayContaining(['host', 'content-type', 'x-amz-date']));
  });

  it('signs the X-Vault-AWS-IAM-Server-ID header when given, and a session token', async () => {
    const f = await awsLoginFields({ credentials: { ...creds, sessionToken: 'session-token' }, serverId: 'latchkey.example.com' });
    const headers = parseHeaders(f.iam_request_headers!);
    expect(headers['x-vault-aws-iam-server-id']).toEqual(['latchkey.example.com']);
    expect(headers['x-amz-security-token']).toEqual(['session-token']);
    const v = verify(f);
    expect(v.ok && v.signedHeaders).toEqual(expect.arrayContaining(['x-vault-aws-iam-server-id']));
  });

  it('another region: its own endpoint and scope', async () => {
    const f = await awsLoginFields({ credentials: creds, region: 'eu-west-1' });
    expect(decode(f.iam_request_url!)).toBe(`https://${stsHost('eu-west-1')}/`);
    expect(stsHost('eu-west-1')).toBe('sts.eu-west-1.amazonaws.com');
    expect(verify(f, 'eu-west-1').ok).toBe(true);
    expect(verify(f, 'us-east-1').ok).toBe(false);
  });
});
