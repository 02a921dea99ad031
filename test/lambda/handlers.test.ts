/**
 * The deployed handlers invoked as Lambda invokes them: functions/sys.ts with API Gateway
 * HTTP API v2 events, functions/sweeper.ts with an EventBridge scheduled event, against a
 * real DynamoDB-compatible server (dynalite) and the local key file in place of KMS.
 */
import { Hono } from 'hono';
import { handle, type APIGatewayProxyResult } from 'hono/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaEnvironment, type LambdaEnvironment } from '../helpers/lambda-env';
import { asLambdaEvent, httpEvent, lambdaContext, scheduledEvent, type HttpEventOptions } from '../helpers/apigw';

type SysHandler = (typeof import('../../functions/sys'))['handler'];
type SweeperHandler = (typeof import('../../functions/sweeper'))['handler'];

let env: LambdaEnvironment;
let sys: SysHandler;
let sweeper: SweeperHandler;
let rootToken: string;
let initialAccessor: string;

beforeAll(async () => {
  // The functions build their deps at module scope from the environment, as on Lambda.
  env = await lambdaEnvironment('latchkey-lambda-test');
  sys = (await import('../../functions/sys')).handler;
  sweeper = (await import('../../functions/sweeper')).handler;
});

afterAll(async () => {
  await env?.close();
});

async function invoke(method: string, target: string, options: HttpEventOptions = {}): Promise<APIGatewayProxyResult> {
  return (await sys(asLambdaEvent(httpEvent(method, target, options)), lambdaContext())) as APIGatewayProxyResult;
}

function json(res: APIGatewayProxyResult): Record<string, unknown> {
  const text = res.isBase64Encoded ? Buffer.from(res.body, 'base64').toString('utf8') : res.body;
  return JSON.parse(text) as Record<string, unknown>;
}

const header = (res: APIGatewayProxyResult, name: string) => (res.headers as Record<string, string | undefined> | undefined)?.[name];
const withRoot = () => ({ 'X-Vault-Token': rootToken });

describe('functions/sys.ts handler', () => {
  it('answers health 501 before init, unauthenticated', async () => {
    const res = await invoke('GET', '/v1/sys/health');
    expect(res.statusCode).toBe(501);
    expect(res.isBase64Encoded).toBe(false);
    expect(header(res, 'content-type')).toMatch(/^application\/json/);
    expect(json(res)).toMatchObject({ initialized: false, sealed: false });
  });

  it('refuses to initialize over HTTP: no root token for the first caller of a public route', async () => {
    for (const method of ['PUT', 'POST']) {
      const res = await invoke(method, '/v1/sys/init', { body: {} });
      expect(res.statusCode).toBe(403);
      expect(json(res).errors).toEqual([expect.stringContaining('npm run admin -- init')]);
      expect(res.body).not.toMatch(/root_token/);
    }
    const status = await invoke('GET', '/v1/sys/init');
    expect(json(status)).toEqual({ initialized: false });
  });

  it('initializes once through the internal init invoke (IAM), answering the root token and its accessor', async () => {
    const out = (await sys({ latchkey: 'init' } as never, lambdaContext())) as unknown as {
      root_token: string;
      root_token_accessor: string;
    };
    expect(out.root_token).toMatch(/\S{20,}/);
    expect(out.root_token_accessor).toMatch(/\S{10,}/);
    rootToken = out.root_token;
    initialAccessor = out.root_token_accessor;
    await expect(sys({ latchkey: 'init' } as never, lambdaContext())).rejects.toThrow(/already initialized/);
    const status = await invoke('GET', '/v1/sys/init');
    expect(json(status)).toEqual({ initialized: true });
  });

  it('answers health 200 after init', async () => {
    const res = await invoke('GET', '/v1/sys/health');
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ initialized: true, version: expect.any(String) });
  });

  it('creates a token with the root token (JSON body) and the new token works', async () => {
    const res = await invoke('POST', '/v1/auth/token/create', { headers: withRoot(), body: { policies: ['default'], ttl: '1h' } });
    expect(res.statusCode).toBe(200);
    const auth = json(res).auth as { client_token: string; policies: string[]; lease_duration: number };
    expect(auth.policies).toEqual(['default']);
    expect(auth.lease_duration).toBe(3600);

    const self = await invoke('GET', '/v1/auth/token/lookup-self', { headers: { authorization: `Bearer ${auth.client_token}` } });
    expect(self.statusCode).toBe(200);
    expect((json(self).data as { ttl: number }).ttl).toBeGreaterThan(3500);
  });

  it('refuses a token create without a token', async () => {
    const res = await invoke('POST', '/v1/auth/token/create', { body: {} });
    expect(res.statusCode).toBe(403);
    expect(json(res).errors).toEqual([expect.any(String)]);
  });

  it('reads a form-encoded body', async () => {
    const res = await invoke('POST', '/v1/auth/token/create', {
      headers: { ...withRoot(), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'display_name=from-form&ttl=2h&policies=default',
    });
    expect(res.statusCode).toBe(200);
    const auth = json(res).auth as { client_token: string; lease_duration: number };
    expect(auth.lease_duration).toBe(7200);
    const looked = await invoke('POST', '/v1/auth/token/lookup', { headers: withRoot(), body: { token: auth.client_token } });
    expect((json(looked).data as { display_name: string }).display_name).toBe('token-from-form');
  });

  it('reads a base64-encoded body (isBase64Encoded: true)', async () => {
    const policy = { path: { 'secret/*': { capabilities: ['read', 'list'] } } };
    const event = httpEvent('PUT', '/v1/sys/policy/readers', {
      headers: withRoot(),
      body: { policy: JSON.stringify(policy) },
      base64: true,
    });
    expect(event.isBase64Encoded).toBe(true);
    expect(event.body).not.toContain('{');
    const res = (await sys(asLambdaEvent(event), lambdaContext())) as APIGatewayProxyResult;
    expect(res.statusCode).toBe(204);

    const read = await invoke('GET', '/v1/sys/policy/readers', { headers: withRoot() });
    expect(read.statusCode).toBe(200);
    expect(JSON.parse((json(read).data as { policy: string }).policy)).toEqual(policy);
  });

  it('lists through the query string: GET /v1/sys/policy?list=true', async () => {
    const event = httpEvent('GET', '/v1/sys/policy?list=true', { headers: withRoot() });
    expect(event.rawQueryString).toBe('list=true');
    expect(event.queryStringParameters).toEqual({ list: 'true' });
    const res = (await sys(asLambdaEvent(event), lambdaContext())) as APIGatewayProxyResult;
    expect(res.statusCode).toBe(200);
    expect(json(res).data).toEqual({ keys: ['default', 'readers', 'root'] });
  });

  it('answers 404 with {"errors":[...]} for an unknown path', async () => {
    const res = await invoke('GET', '/v1/sys/no-such-thing', { headers: withRoot() });
    expect(res.statusCode).toBe(404);
    expect(header(res, 'content-type')).toMatch(/^application\/json/);
    expect(json(res)).toEqual({ errors: [expect.stringContaining('sys/no-such-thing')] });
  });

  it('answers 405 with {"errors":[...]} for an operation a path lacks', async () => {
    const res = await invoke('DELETE', '/v1/sys/health');
    expect(res.statusCode).toBe(405);
    expect(json(res)).toEqual({ errors: ['unsupported operation: DELETE on "sys/health"; it takes GET'] });
  });

  it('passes cookies without breaking token auth', async () => {
    const res = await invoke('GET', '/v1/auth/token/lookup-self', { headers: withRoot(), cookies: ['session=abc', 'theme=dark'] });
    expect(res.statusCode).toBe(200);
    expect((json(res).data as { policies: string[] }).policies).toEqual(['root']);
  });

  it('makes a new root token through the internal generate-root invoke; the first one can then be revoked by accessor', async () => {
    const out = (await sys({ latchkey: 'generate-root' } as never, lambdaContext())) as unknown as {
      root_token: string;
      root_token_accessor: string;
    };
    expect(out.root_token).not.toBe(rootToken);
    const first = rootToken;
    rootToken = out.root_token;
    const self = await invoke('GET', '/v1/auth/token/lookup-self', { headers: withRoot() });
    expect((json(self).data as { policies: string[] }).policies).toEqual(['root']);
    const revoked = await invoke('POST', '/v1/auth/token/revoke-accessor', { headers: withRoot(), body: { accessor: initialAccessor } });
    expect(revoked.statusCode).toBe(204);
    const old = await invoke('GET', '/v1/auth/token/lookup-self', { headers: { 'X-Vault-Token': first } });
    expect(old.statusCode).toBe(403);
  });

  it('refuses an internal event it does not know, and an engine event sent to sys', async () => {
    await expect(sys({ latchkey: 'unseal' } as never, lambdaContext())).rejects.toThrow(/unsupported internal event/);
    await expect(sys({ latchkey: 'openapi' } as never, lambdaContext())).rejects.toThrow(/unsupported internal event/);
  });

  // sys has no binary response today: everything it answers is JSON or empty, and stays text.
  it('answers text, never base64, for its JSON responses (sys has no binary path)', async () => {
    const res = await invoke('GET', '/v1/sys/openapi', { headers: withRoot() });
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(false);
    expect(json(res)).toHaveProperty('openapi');
  });
});

describe('hono/aws-lambda binary responses (what the PKI CRL endpoints will rely on)', () => {
  const crl = Uint8Array.from([0x30, 0x82, 0x01, 0x0a, 0x30, 0x81, 0xf3, 0x02, 0x01, 0x01, 0x00, 0xff, 0x80, 0x7f]);
  const app = new Hono().get('/v1/pki/crl', () => new Response(crl, { headers: { 'content-type': 'application/pkix-crl' } }));
  const binary = handle(app);

  it('returns DER bytes base64-encoded with isBase64Encoded: true', async () => {
    const res = await binary(asLambdaEvent(httpEvent('GET', '/v1/pki/crl')), lambdaContext('latchkey-dev-pki'));
    expect(res.statusCode).toBe(200);
    expect(res.isBase64Encoded).toBe(true);
    expect(header(res, 'content-type')).toBe('application/pkix-crl');
    expect(new Uint8Array(Buffer.from(res.body, 'base64'))).toEqual(crl);
  });
});

describe('functions/sweeper.ts handler', () => {
  it('sweeps on a scheduled EventBridge event and returns its report', async () => {
    const report = await sweeper(scheduledEvent(), lambdaContext('latchkey-dev-sweeper', 55_000));
    expect(report).toEqual({ leasesRevoked: expect.any(Number), leasesFailed: 0, tokensRemoved: expect.any(Number) });
  });

  it('removes a token that expired', async () => {
    const res = await invoke('POST', '/v1/auth/token/create', { headers: withRoot(), body: { ttl: '1s', policies: ['default'] } });
    const token = (json(res).auth as { client_token: string }).client_token;
    await new Promise((r) => setTimeout(r, 2100));
    const report = await sweeper(scheduledEvent(), lambdaContext('latchkey-dev-sweeper', 55_000));
    expect(report.tokensRemoved).toBeGreaterThanOrEqual(1);
    const after = await invoke('POST', '/v1/auth/token/lookup', { headers: withRoot(), body: { token } });
    expect(after.statusCode).toBe(403);
  });
});
