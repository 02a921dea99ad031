/**
 * functions/catalog.ts invoked as Lambda invokes it: API Gateway HTTP API v2 events (binary
 * bodies base64-encoded) and sys's internal `openapi` invocation, on a real dynalite table.
 * No Lambda variable is set here, and the catalog is closed all the same (its settings do not
 * depend on where it runs): requests carry the root token in X-Consul-Token.
 */
import type { APIGatewayProxyResult } from 'hono/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depsFromEnvironment } from '../../lib/composition';
import { initialize } from '../../lib/sys/init';
import { lambdaEnvironment, type LambdaEnvironment } from '../helpers/lambda-env';
import { asLambdaEvent, httpEvent, lambdaContext, type HttpEventOptions } from '../helpers/apigw';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
let env: LambdaEnvironment;
let handler: Handler;
let root: string;

beforeAll(async () => {
  env = await lambdaEnvironment('latchkey-catalog-lambda');
  handler = (await import('../../functions/catalog')).handler as Handler;
  root = (await initialize(depsFromEnvironment())).rootToken;
});
afterAll(async () => {
  await env?.close();
});

const anonymous = async (method: string, target: string, o: HttpEventOptions = {}) =>
  (await handler(asLambdaEvent(httpEvent(method, target, o)), lambdaContext())) as APIGatewayProxyResult;
const invoke = (method: string, target: string, o: HttpEventOptions = {}) =>
  anonymous(method, target, { ...o, headers: { ...o.headers, 'x-consul-token': root } });
const bodyOf = (r: APIGatewayProxyResult) => (r.isBase64Encoded ? Buffer.from(r.body, 'base64') : Buffer.from(r.body));
const header = (r: APIGatewayProxyResult, name: string) => (r.headers as Record<string, string | undefined>)[name.toLowerCase()];

describe('functions/catalog.ts handler', () => {
  it('is closed with no Lambda variable set: anonymous writes, reads and registrations are refused', async () => {
    expect(process.env.AWS_LAMBDA_FUNCTION_NAME).toBeUndefined();
    const put = await anonymous('PUT', '/v1/kv/lambda/anon', { body: 'v' });
    expect(put.statusCode).toBe(403);
    expect(header(put, 'X-Catalog-Default-ACL-Policy')).toBe('deny');
    expect((await anonymous('GET', '/v1/kv/lambda/anon')).statusCode).toBe(403);
    expect((await anonymous('PUT', '/v1/catalog/register', { body: { Node: 'anon', Address: '10.7.0.9' } })).statusCode).toBe(403);
  });

  it('stores a binary value sent base64-encoded and answers it back byte for byte', async () => {
    const bytes = new Uint8Array([0, 255, 1, 254, 10, 13, 0]);
    const put = await invoke('PUT', '/v1/kv/lambda/bin', { body: bytes });
    expect(put.statusCode).toBe(200);
    expect(bodyOf(put).toString()).toBe('true');
    const raw = await invoke('GET', '/v1/kv/lambda/bin?raw');
    expect(raw.statusCode).toBe(200);
    expect(new Uint8Array(bodyOf(raw))).toEqual(bytes);
    expect(Number(header(raw, 'X-Consul-Index'))).toBeGreaterThan(0);
  });

  it('registers and lists a service, with the catalog headers', async () => {
    const reg = await invoke('PUT', '/v1/catalog/register', {
      body: { Node: 'l1', Address: '10.7.0.1', Service: { Service: 'lam', Port: 9 } },
    });
    expect(bodyOf(reg).toString()).toBe('true');
    const list = await invoke('GET', '/v1/catalog/services');
    expect(JSON.parse(bodyOf(list).toString())).toEqual({ lam: [] });
    expect(header(list, 'X-Catalog-Default-ACL-Policy')).toBe('deny');
  });

  it('refuses a %0a in the path and a value over 512 KiB', async () => {
    expect((await invoke('GET', '/v1/kv/a%0Ab')).statusCode).toBe(400);
    expect((await invoke('PUT', '/v1/kv/lambda/big', { body: new Uint8Array(512 * 1024 + 1) })).statusCode).toBe(413);
  });

  it("answers sys's internal openapi invocation with the catalog paths", async () => {
    const paths = (await handler({ latchkey: 'openapi' }, lambdaContext())) as Record<string, Record<string, unknown>>;
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining(['/kv/{key}', '/catalog/register', '/catalog/service/{name}', '/agent/members']),
    );
    expect(paths['/kv/{key}']).toHaveProperty('delete');
  });
});
