/** The STS fake, driven by the official SDK's STS client so that the wire protocol is the real one. */
import { GetCallerIdentityCommand, STSClient, STSServiceException } from '@aws-sdk/client-sts';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signSigV4 } from './sigv4';
import { startStsFake, type StsCredentials, type StsFake } from './sts/server';

let fake: StsFake;

function client(credentials: StsCredentials, region = 'us-east-1'): STSClient {
  return new STSClient({ endpoint: fake.endpoint, region, credentials, maxAttempts: 1 });
}

async function callerIdentity(credentials: StsCredentials, region?: string) {
  const sts = client(credentials, region);
  try {
    return await sts.send(new GetCallerIdentityCommand({}));
  } finally {
    sts.destroy();
  }
}

/** Sends a hand-made request to the fake (whatever Host header it carries); answers status and body. */
function send(method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  const url = new URL(fake.endpoint);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = 'Action=GetCallerIdentity&Version=2011-06-15';

function signedForAws(credentials: StsCredentials, o: { date?: Date; body?: string; host?: string } = {}) {
  const body = Buffer.from(o.body ?? FORM);
  const headers: Record<string, string> = {
    host: o.host ?? 'sts.amazonaws.com',
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    'x-vault-aws-iam-server-id': 'latchkey.example.com',
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const req = { method: 'POST', url: '/', headers, body };
  signSigV4(req, credentials, { region: 'us-east-1', service: 'sts', ...(o.date ? { date: o.date } : {}) });
  return req;
}

beforeAll(async () => {
  fake = await startStsFake();
});

afterAll(async () => {
  await fake.close();
});

describe('GetCallerIdentity through the official SDK', () => {
  it('answers an IAM user', async () => {
    const { credentials, identity } = fake.addUser('alice');
    const out = await callerIdentity(credentials);
    expect(out).toMatchObject({ Arn: 'arn:aws:iam::123456789012:user/alice', UserId: identity.userId, Account: '123456789012' });
    expect(identity.userId).toMatch(/^AIDA[0-9A-F]{16}$/);
  });

  it('answers a user with a path and one of another account', async () => {
    const { credentials } = fake.addUser('bob', { path: 'ops/', account: '210987654321' });
    expect(await callerIdentity(credentials)).toMatchObject({ Arn: 'arn:aws:iam::210987654321:user/ops/bob', Account: '210987654321' });
  });

  it('answers an assumed role, whose credentials carry a session token', async () => {
    const { credentials, identity } = fake.addAssumedRole('app-role', 'i-0abc');
    const out = await callerIdentity(credentials);
    expect(out).toMatchObject({ Arn: 'arn:aws:sts::123456789012:assumed-role/app-role/i-0abc', UserId: identity.userId });
    expect(out.UserId).toMatch(/^AROA[0-9A-F]{16}:i-0abc$/);
  });

  it('refuses a wrong secret with SignatureDoesNotMatch', async () => {
    const { credentials } = fake.addUser('carol');
    const err = await callerIdentity({ ...credentials, secretAccessKey: credentials.secretAccessKey + 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(STSServiceException);
    expect(err).toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
  });

  it('refuses an unknown access key and an assumed role without its session token', async () => {
    await expect(callerIdentity({ accessKeyId: 'AKIAUNKNOWN000000000', secretAccessKey: 'x' })).rejects.toMatchObject({
      name: 'InvalidClientTokenId',
    });
    const { credentials } = fake.addAssumedRole('app-role', 's2');
    const { sessionToken: _, ...withoutToken } = credentials;
    await expect(callerIdentity(withoutToken)).rejects.toMatchObject({ name: 'InvalidClientTokenId' });
    await expect(callerIdentity({ ...credentials, sessionToken: 'another' })).rejects.toMatchObject({ name: 'InvalidClientTokenId' });
  });

  it('refuses a signature scoped to another region', async () => {
    const { credentials } = fake.addUser('dave');
    await expect(callerIdentity(credentials, 'eu-west-1')).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
  });

  it('answers an injected fault once', async () => {
    const { credentials } = fake.addUser('erin');
    fake.inject({ status: 400, code: 'Throttling' });
    await expect(callerIdentity(credentials)).rejects.toMatchObject({ name: 'Throttling' });
    expect(await callerIdentity(credentials)).toMatchObject({ Arn: 'arn:aws:iam::123456789012:user/erin' });
  });
});

describe('requests signed for sts.amazonaws.com', () => {
  it('verifies one sent to the fake with the Host header it was signed with', async () => {
    const { credentials } = fake.addUser('frank');
    const req = signedForAws(credentials);
    fake.calls.length = 0;
    const res = await send(req.method, req.url, req.headers, req.body);
    expect(res.status).toBe(200);
    expect(res.body).toContain('<Arn>arn:aws:iam::123456789012:user/frank</Arn>');
    expect(fake.calls).toEqual([
      { action: 'GetCallerIdentity', host: 'sts.amazonaws.com', accessKeyId: credentials.accessKeyId, status: 200 },
    ]);
  });

  it('refuses it when a signed header or the body is changed', async () => {
    const { credentials } = fake.addUser('grace');
    const req = signedForAws(credentials);
    const forged = await send(req.method, req.url, { ...req.headers, 'x-vault-aws-iam-server-id': 'other' }, req.body);
    expect(forged.status).toBe(403);
    expect(forged.body).toContain('<Code>SignatureDoesNotMatch</Code>');
    const otherHost = await send(req.method, req.url, { ...req.headers, host: 'sts.us-west-2.amazonaws.com' }, req.body);
    expect(otherHost.body).toContain('<Code>SignatureDoesNotMatch</Code>');
    const otherBody = await send(req.method, req.url, req.headers, Buffer.from('Action=GetCallerIdentity&Version=2011-06-16'));
    expect(otherBody.body).toContain('<Code>SignatureDoesNotMatch</Code>');
  });

  it('refuses a request signed more than 15 minutes ago, and takes one signed 10 minutes ago', async () => {
    const { credentials } = fake.addUser('heidi');
    const old = signedForAws(credentials, { date: new Date(Date.now() - 16 * 60_000) });
    const res = await send(old.method, old.url, old.headers, old.body);
    expect(res.status).toBe(403);
    expect(res.body).toContain('<Code>SignatureDoesNotMatch</Code>');
    expect(res.body).toContain('expired');
    const recent = signedForAws(credentials, { date: new Date(Date.now() - 10 * 60_000) });
    expect((await send(recent.method, recent.url, recent.headers, recent.body)).status).toBe(200);
  });

  it('answers InvalidAction for another action, signed or not', async () => {
    const { credentials } = fake.addUser('ivan');
    const req = signedForAws(credentials, { body: 'Action=GetSessionToken&Version=2011-06-15' });
    const res = await send(req.method, req.url, req.headers, req.body);
    expect(res.status).toBe(400);
    expect(res.body).toContain('<Code>InvalidAction</Code>');
    const unsigned = await send(
      'POST',
      '/',
      { host: 'sts.amazonaws.com', 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.from(FORM),
    );
    expect(unsigned.status).toBe(403);
    expect(unsigned.body).toContain('<Code>MissingAuthenticationToken</Code>');
  });
});
