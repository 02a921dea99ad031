import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLoginRequest } from '../../../lib/auth/aws/login-request';
import { callerIdentity, parseCallerIdentity, StsUnreachable } from '../../../lib/auth/aws/sts-call';
import { InvalidInput } from '../../../lib/domain-errors';
import { startStsFake, type StsFake } from '../../fakes/sts/server';
import { signedLogin } from '../../fakes/sts/signed-login';

let sts: StsFake;
let odd: Server;
let oddUrl: string;
const answers: ((res: import('node:http').ServerResponse) => void)[] = [];

beforeAll(async () => {
  sts = await startStsFake();
  odd = createServer((_req, res) => answers.shift()?.(res));
  await new Promise<void>((r) => odd.listen(0, '127.0.0.1', r));
  oddUrl = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await sts.close();
  odd.closeAllConnections();
  await new Promise((r) => odd.close(r));
});

const checked = (creds = sts.addUser('u').credentials, o = {}) => {
  const b = signedLogin(creds, o);
  return checkLoginRequest(
    { method: 'POST', url: b.iam_request_url ?? '', body: b.iam_request_body ?? '', headers: b.iam_request_headers },
    { stsRegion: 'us-east-1', serverIdHeaderValue: '' },
  );
};

describe('callerIdentity', () => {
  it('sends the signed request to the endpoint with its Host header, and reads the identity', async () => {
    const { credentials, identity } = sts.addAssumedRole('r', 's');
    sts.calls.length = 0;
    expect(await callerIdentity(sts.endpoint, checked(credentials))).toEqual(identity);
    expect(sts.calls[0]).toMatchObject({ host: 'sts.amazonaws.com', status: 200 });
  });

  it('answers an STS refusal as invalid input naming only the code, and an STS fault as unreachable', async () => {
    const req = checked();
    sts.inject({
      status: 403,
      body: '<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>The Canonical String for this request should have been secret-stuff</Message></Error></ErrorResponse>',
    });
    const e = await callerIdentity(sts.endpoint, req).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidInput);
    expect((e as Error).message).toBe('error making upstream request: STS answered 403 SignatureDoesNotMatch');
    sts.inject({ status: 503, code: 'Service Unavailable <script>' });
    const f = await callerIdentity(sts.endpoint, req).catch((x: unknown) => x);
    expect(f).toBeInstanceOf(StsUnreachable);
    expect((f as Error).message).toBe('error making upstream request: STS answered 503 unknown');
  });

  it('gives up on an answer that is too large, one that does not come in time, and a closed port', async () => {
    answers.push((res) => res.end('x'.repeat(200_000)));
    await expect(callerIdentity(oddUrl, checked())).rejects.toBeInstanceOf(StsUnreachable);
    answers.push(() => undefined);
    await expect(callerIdentity(oddUrl, checked(), 200)).rejects.toBeInstanceOf(StsUnreachable);
    await expect(callerIdentity('http://127.0.0.1:1', checked())).rejects.toBeInstanceOf(StsUnreachable);
  });

  it('does not follow a redirect', async () => {
    answers.push((res) => {
      res.writeHead(307, { location: sts.endpoint });
      res.end();
    });
    sts.calls.length = 0;
    await expect(callerIdentity(oddUrl, checked())).rejects.toThrow('STS answered 307');
    expect(sts.calls).toEqual([]);
  });
});

describe('parseCallerIdentity', () => {
  it('reads the result, entities decoded', () => {
    const xml =
      '<?xml version="1.0"?><GetCallerIdentityResponse xmlns="x"><GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/a&amp;b</Arn><UserId>AIDA1</UserId><Account>123456789012</Account></GetCallerIdentityResult></GetCallerIdentityResponse>';
    expect(parseCallerIdentity(xml)).toEqual({ arn: 'arn:aws:iam::123456789012:user/a&b', userId: 'AIDA1', account: '123456789012' });
  });

  it('refuses other documents, missing or repeated fields', () => {
    const wrap = (inner: string) =>
      `<GetCallerIdentityResponse><GetCallerIdentityResult>${inner}</GetCallerIdentityResult></GetCallerIdentityResponse>`;
    for (const xml of [
      '<html/>',
      wrap('<Arn>a</Arn><UserId>u</UserId>'),
      wrap('<Arn>a</Arn><Arn>b</Arn><UserId>u</UserId><Account>1</Account>'),
      '<Other><GetCallerIdentityResponse><GetCallerIdentityResult><Arn>a</Arn><UserId>u</UserId><Account>1</Account></GetCallerIdentityResult></GetCallerIdentityResponse></Other>',
    ]) {
      expect(() => parseCallerIdentity(xml), xml).toThrow(StsUnreachable);
    }
  });
});
