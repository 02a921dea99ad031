/**
 * ACME through the deployed pki handler (API Gateway HTTP API v2 events → functions/pki.ts):
 * the directory's URLs come from the URL API Gateway was called on (its Host and
 * X-Forwarded-Proto) until config/cluster names the external URL, then from that (a custom
 * domain, a stage path); a JWS signed for that external URL is accepted; HEAD new-nonce is 200.
 */
import type { APIGatewayProxyResult } from 'hono/aws-lambda';
import { FlattenedSign, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asLambdaEvent, httpEvent, lambdaContext, type HttpEventOptions } from '../helpers/apigw';
import { lambdaEnvironment, type LambdaEnvironment } from '../helpers/lambda-env';

let env: LambdaEnvironment;
let pki: (typeof import('../../functions/pki'))['handler'];
let root: string;

beforeAll(async () => {
  env = await lambdaEnvironment('latchkey-lambda-acme');
  const sys = (await import('../../functions/sys')).handler;
  pki = (await import('../../functions/pki')).handler;
  root = ((await sys({ latchkey: 'init' } as never, lambdaContext())) as unknown as { root_token: string }).root_token;
});

afterAll(async () => env?.close());

const invoke = async (method: string, target: string, options: HttpEventOptions = {}) =>
  (await pki(asLambdaEvent(httpEvent(method, target, options)), lambdaContext('latchkey-dev-pki'))) as APIGatewayProxyResult;
const body = (r: APIGatewayProxyResult) =>
  JSON.parse(r.isBase64Encoded ? Buffer.from(r.body, 'base64').toString() : r.body) as Record<string, unknown>;
const header = (r: APIGatewayProxyResult, name: string) => (r.headers as Record<string, string | undefined>)[name];
const admin = (path: string, b: object) => invoke('POST', `/v1/pki/${path}`, { headers: { 'X-Vault-Token': root }, body: b });

it('serves the directory on the API Gateway URL, then on config/cluster path, and takes JWS signed for it', async () => {
  expect((await admin('root/generate/internal', { common_name: 'lambda acme root', key_type: 'ec' })).statusCode).toBe(200);
  expect((await admin('config/acme', { enabled: true })).statusCode).toBe(200);
  const onGateway = body(await invoke('GET', '/v1/pki/acme/directory'));
  expect(onGateway.newOrder).toBe('https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/v1/pki/acme/new-order');

  const external = 'https://ca.example.net/prod/v1/pki';
  expect((await admin('config/cluster', { path: external })).statusCode).toBe(200);
  const dir = body(await invoke('GET', '/v1/pki/acme/directory'));
  expect(dir.newAccount).toBe(`${external}/acme/new-account`);

  const head = await invoke('HEAD', '/v1/pki/acme/new-nonce');
  expect(head.statusCode).toBe(200);
  const nonce = header(head, 'replay-nonce')!;
  expect(header(head, 'link')).toBe(`<${external}/acme/directory>;rel="index"`);

  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jws = await new FlattenedSign(new TextEncoder().encode(JSON.stringify({ termsOfServiceAgreed: true })))
    .setProtectedHeader({ alg: 'ES256', jwk: await exportJWK(publicKey), nonce, url: dir.newAccount as string })
    .sign(privateKey);
  const created = await invoke('POST', '/v1/pki/acme/new-account', {
    headers: { 'content-type': 'application/jose+json' },
    body: JSON.stringify(jws),
  });
  expect(created.statusCode, created.body).toBe(201);
  expect(header(created, 'location')).toMatch(new RegExp(`^${external}/acme/account/[0-9a-f-]{36}$`));
  expect(header(created, 'replay-nonce')).toMatch(/^[0-9a-f]{9}[A-Za-z0-9_-]{22}$/);
});
