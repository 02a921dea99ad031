/** HEAD through the deployed handler (API Gateway HTTP API v2 event → functions/sys.ts): the GET's status and headers, no body. */
import type { APIGatewayProxyResult } from 'hono/aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asLambdaEvent, httpEvent, lambdaContext } from '../helpers/apigw';
import { lambdaEnvironment, type LambdaEnvironment } from '../helpers/lambda-env';

let env: LambdaEnvironment;
let sys: (typeof import('../../functions/sys'))['handler'];

beforeAll(async () => {
  env = await lambdaEnvironment('latchkey-lambda-head');
  sys = (await import('../../functions/sys')).handler;
});

afterAll(async () => env?.close());

const invoke = async (method: string, target: string) =>
  (await sys(asLambdaEvent(httpEvent(method, target)), lambdaContext())) as APIGatewayProxyResult;

it('answers HEAD on a readable path as its GET without the body, and 405 where there is no read', async () => {
  const get = await invoke('GET', '/v1/sys/health');
  const head = await invoke('HEAD', '/v1/sys/health');
  expect(head.statusCode).toBe(get.statusCode);
  expect(head.headers?.['content-type']).toBe(get.headers?.['content-type']);
  expect(head.body).toBe('');
  expect((await invoke('HEAD', '/v1/sys/init')).statusCode).toBe(200);
  expect((await invoke('HEAD', '/v1/sys/wrapping/wrap')).statusCode).toBe(405);
});
