/**
 * Deployed shape: sys and the sweeper reach engine code only by invoking the engine's function
 * (Lambda Invoke through the lean signer; a local Lambda fake that verifies SigV4 runs the
 * engine function's real handler in-process).
 */
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInvoker } from '../../lib/aws/lambda-invoke';
import type { EngineModule } from '../../lib/engines';
import { f } from '../../lib/http/fields';
import { definePath } from '../../lib/http/path';
import { engineFunction } from '../../lib/lambda';
import { remoteOpenApiPaths, useRemoteRevokers } from '../../lib/remote-engines';
import { sysFunctionApp } from '../../lib/sys-function';
import { sweep } from '../../lib/sys/sweeper';
import { startLambdaFake, type LambdaFake } from '../fakes/lambda-server';
import { call, createTestService, type TestService } from '../helpers/service';

const undone: string[] = [];
let failing = false;
const testEngine: EngineModule = {
  type: 'pki',
  paths: () => [
    definePath({
      pattern: 'things/:name',
      fields: { name: f.pathParam(), size: f.int() },
      help: 'A thing.',
      operations: { read: async (req) => ({ data: { name: req.data.name } }) },
    }),
  ],
  revoker: () => async (lease) => {
    if (failing) throw new Error('the thing would not go');
    undone.push(String((lease.revoke as { thing: string }).thing));
  },
};

let svc: TestService;
let fake: LambdaFake;
let invoker: LambdaInvoker;
let sysApp: ReturnType<typeof sysFunctionApp>;

beforeAll(async () => {
  svc = await createTestService();
  fake = await startLambdaFake({ 'latchkey-test-pki': engineFunction(testEngine, svc.deps) as (e: unknown) => Promise<unknown> });
  invoker = new LambdaInvoker('us-east-1', fake.endpoint, () => fake.credentials);
  const names = { pki: 'latchkey-test-pki' };
  useRemoteRevokers(svc.deps, names, invoker);
  sysApp = sysFunctionApp(
    svc.deps,
    async () => [],
    () => remoteOpenApiPaths(names, invoker),
  );
});
afterAll(() => fake.close());

const lease = (thing: string) =>
  svc.deps.leases.create({
    mount: 'pki',
    engine: 'pki',
    path: 'issue/web',
    ttl: 60,
    maxTtl: 60,
    renewable: false,
    revoke: { thing },
    owner: '',
  });

describe('sys reaching engine functions by Lambda Invoke', () => {
  it('revokes a lease through the engine function', async () => {
    const l = await lease('cert-1');
    const r = await call(sysApp, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(r.status).toBe(204);
    expect(undone).toContain('cert-1');
    expect(fake.calls.at(-1)).toMatchObject({
      functionName: 'latchkey-test-pki',
      event: { latchkey: 'revoke-lease', lease_id: l.lease_id },
    });
  });

  it('keeps the lease and retries when the engine function fails', async () => {
    const l = await lease('cert-2');
    failing = true;
    const r = await call(sysApp, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(r.status).toBe(502);
    expect(r.json!.errors[0]).toMatch(/function latchkey-test-pki failed: the thing would not go/);
    failing = false;
    const kept = await svc.deps.leases.lookup(l.lease_id);
    expect(kept.attempts).toBe(1);
  });

  it('the sweeper revokes due leases the same way', async () => {
    const l = await svc.deps.leases.create({
      mount: 'pki',
      engine: 'pki',
      path: 'issue/web',
      ttl: 0,
      maxTtl: 0,
      renewable: false,
      revoke: { thing: 'cert-3' },
      owner: '',
    });
    await sweep(svc.deps, 5000);
    expect(undone).toContain('cert-3');
    await expect(svc.deps.leases.lookup(l.lease_id)).rejects.toThrow('invalid lease');
  });

  it('builds the OpenAPI document from each function', async () => {
    const r = await call(sysApp, 'GET', '/v1/sys/openapi', { token: svc.root });
    expect(r.json!.paths['/pki/things/{name}'].get).toBeDefined();
    expect(r.json!.paths['/sys/health']).toBeDefined();
  });

  it('a function that does not exist is a clear failure, not a crash', async () => {
    useRemoteRevokers(svc.deps, { ssh: 'latchkey-test-missing' }, invoker);
    const l = await svc.deps.leases.create({
      mount: 'ssh',
      engine: 'ssh',
      path: 'creds/x',
      ttl: 60,
      maxTtl: 60,
      renewable: false,
      revoke: {},
      owner: '',
    });
    const r = await call(sysApp, 'PUT', '/v1/sys/leases/revoke', { token: svc.root, body: { lease_id: l.lease_id } });
    expect(r.status).toBe(502);
    expect(r.json!.errors[0]).toMatch(/ResourceNotFoundException|Function not found/);
  });
});

describe('the Lambda fake, driven by the official SDK', () => {
  it('invokes with a verified signature and reports function errors as Lambda does', async () => {
    const client = new LambdaClient({ endpoint: fake.endpoint, region: 'us-east-1', credentials: fake.credentials });
    const ok = await client.send(
      new InvokeCommand({ FunctionName: 'latchkey-test-pki', Payload: Buffer.from(JSON.stringify({ latchkey: 'openapi' })) }),
    );
    expect(ok.StatusCode).toBe(200);
    expect(JSON.parse(Buffer.from(ok.Payload!).toString())).toHaveProperty('/pki/things/{name}');
    const bad = await client.send(
      new InvokeCommand({ FunctionName: 'latchkey-test-pki', Payload: Buffer.from(JSON.stringify({ latchkey: 'nope' })) }),
    );
    expect(bad.FunctionError).toBe('Unhandled');
    const wrong = new LambdaClient({
      endpoint: fake.endpoint,
      region: 'us-east-1',
      credentials: { ...fake.credentials, secretAccessKey: 'x' },
    });
    await expect(wrong.send(new InvokeCommand({ FunctionName: 'latchkey-test-pki' }))).rejects.toThrow();
    client.destroy();
    wrong.destroy();
  });
});
