/**
 * The deploy walkthrough against the packaged bundles (the zips `npm run package` wrote, reused
 * from test/lambda/package.test.ts, which calls this after packaging): each function's .mjs is
 * unzipped and imported with a Lambda's environment, then driven with API Gateway v2 events and
 * internal invokes. Stand-ins that check SigV4 signatures: the KMS fake (sealing) and the Lambda
 * Invoke fake (`npm run admin` → sys, sys → engines); dynalite holds the table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInvoker } from '../../lib/aws/lambda-invoke';
import { startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/store/embedded';
import { ensureTable } from '../../lib/store/setup';
import { runAdmin } from '../../scripts/admin';
import { startKmsFake, type KmsFake } from '../fakes/kms-server';
import { startLambdaFake, type LambdaFake } from '../fakes/lambda-server';
import { asLambdaEvent, httpEvent, lambdaContext, type HttpEventOptions } from '../helpers/apigw';
import { dynamoClient } from '../helpers/store';
import { emfLines, expectValidEmf } from '../helpers/emf-spec';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
interface Reply {
  statusCode: number;
  body: string;
  isBase64Encoded: boolean;
}

export function describeBundles(out: () => string): void {
  describe('the packaged bundles, end to end (deploy walkthrough)', () => {
    const handlers = new Map<string, Handler>();
    const saved = { ...process.env };
    // The bundles' standard output (EMF lines among it), and the HTTP requests each function answered.
    let stdout = '';
    const realWrite = process.stdout.write.bind(process.stdout);
    const requests = new Map<string, number>();
    let dir: string;
    let dynamo: EmbeddedDynamo;
    let kms: KmsFake;
    let lambda: LambdaFake;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'latchkey-bundles-'));
      process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        return (realWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof process.stdout.write;
      dynamo = await startEmbeddedDynamo();
      await ensureTable(dynamoClient(dynamo.endpoint), 'latchkey-e2e');
      const route = (name: string) => (e: unknown) => handlers.get(name)!(e, lambdaContext(`latchkey-dev-${name}`));
      lambda = await startLambdaFake({
        'latchkey-dev-sys': route('sys'),
        'latchkey-dev-pki': route('pki'),
        'latchkey-dev-catalog': route('catalog'),
      });
      kms = await startKmsFake(lambda.credentials);
      const key = await kms.createKey();
      Object.assign(process.env, {
        TABLE_NAME: 'latchkey-e2e',
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        KMS_KEY_ID: key.arn,
        KMS_ENDPOINT: kms.endpoint,
        LAMBDA_ENDPOINT: lambda.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: lambda.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: lambda.credentials.secretAccessKey,
        LATCHKEY_FUNCTIONS: JSON.stringify({ pki: 'latchkey-dev-pki', catalog: 'latchkey-dev-catalog' }),
        LOG_LEVEL: 'silent',
      });
      delete process.env.LOCAL_KEY_FILE;
      for (const name of ['sys', 'pki', 'catalog']) {
        process.env.AWS_LAMBDA_FUNCTION_NAME = `latchkey-dev-${name}`;
        execFileSync('unzip', ['-o', '-q', join(out(), `${name}.zip`), '-d', join(dir, name)]);
        const mod = (await import(pathToFileURL(join(dir, name, 'functions', `${name}.mjs`)).href)) as { handler: Handler };
        handlers.set(name, mod.handler);
      }
    }, 60_000);

    afterAll(async () => {
      process.stdout.write = realWrite;
      process.env = saved;
      await lambda?.close();
      await kms?.close();
      await dynamo?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const http = async (fn: string, method: string, target: string, o: HttpEventOptions = {}) => {
      requests.set(fn, (requests.get(fn) ?? 0) + 1);
      const r = (await handlers.get(fn)!(asLambdaEvent(httpEvent(method, target, o)), lambdaContext(`latchkey-dev-${fn}`))) as Reply;
      const text = r.isBase64Encoded ? Buffer.from(r.body, 'base64').toString() : r.body;
      return { status: r.statusCode, text, json: () => JSON.parse(text) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
    };

    it('deploys closed: no init over HTTP, no anonymous catalog access', async () => {
      expect((await http('sys', 'PUT', '/v1/sys/init', { body: {} })).status).toBe(403);
      expect((await http('sys', 'GET', '/v1/sys/health')).status).toBe(501);
      expect((await http('catalog', 'PUT', '/v1/kv/app/db-password', { body: 'hunter2' })).status).toBe(403);
      expect((await http('catalog', 'PUT', '/v1/catalog/register', { body: { Node: 'n1', Address: '10.0.0.1' } })).status).toBe(403);
    });

    it('initialises with IAM, then a policy, a token, a CA, a role and an issued certificate; KMS seals', async () => {
      const invoker = new LambdaInvoker('us-east-1', lambda.endpoint, () => lambda.credentials);
      const { root_token: root } = await runAdmin({ command: 'init', functionName: 'latchkey-dev-sys', region: 'us-east-1' }, invoker);
      const withRoot = { 'X-Vault-Token': root };
      expect((await http('sys', 'GET', '/v1/sys/health')).status).toBe(200);
      const policy = { path: { 'pki/issue/web': { capabilities: ['update'] } } };
      expect(
        (await http('sys', 'PUT', '/v1/sys/policy/issuer', { headers: withRoot, body: { policy: JSON.stringify(policy) } })).status,
      ).toBe(204);
      const issuer = (
        await http('sys', 'POST', '/v1/auth/token/create', { headers: withRoot, body: { policies: ['issuer'], ttl: '1h' } })
      ).json().auth.client_token as string;

      expect(
        (
          await http('pki', 'POST', '/v1/pki/root/generate/internal', {
            headers: withRoot,
            body: { common_name: 'E2E Root', ttl: '87600h' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await http('pki', 'POST', '/v1/pki/roles/web', {
            headers: withRoot,
            body: { allowed_domains: 'example.com', allow_subdomains: true },
          })
        ).status,
      ).toBe(200);
      const issued = await http('pki', 'POST', '/v1/pki/issue/web', {
        headers: { 'X-Vault-Token': issuer },
        body: { common_name: 'www.example.com', ttl: '1h' },
      });
      expect(issued.status).toBe(200);
      expect(issued.json().data.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
      expect((await http('pki', 'POST', '/v1/pki/roles/web', { headers: { 'X-Vault-Token': issuer }, body: {} })).status).toBe(403);

      // Sealing went through the KMS stand-in (signature-checked), with the service key.
      expect(kms.calls.filter((c) => c.status === 200).map((c) => c.operation)).toEqual(expect.arrayContaining(['GenerateDataKey']));
      // sys reaches the engines by Lambda Invoke (the OpenAPI document asks each one).
      const paths = Object.keys((await http('sys', 'GET', '/v1/sys/openapi', { headers: withRoot })).json().paths as object);
      expect(paths.filter((p) => p.startsWith('/pki/issue/'))).toHaveLength(1);
      expect(lambda.calls.filter((c) => c.functionName === 'latchkey-dev-pki').map((c) => c.event)).toContainEqual({ latchkey: 'openapi' });
    });

    it('writes valid EMF from each packaged function: one cold start per instance, every request counted, no token in a line', () => {
      const docs = emfLines(stdout).map((e) => e.doc as Record<string, unknown>);
      expectValidEmf(docs);
      const of = (fn: string, metric: string) =>
        docs.filter((d) => d.function === fn && metric in d).reduce((n, d) => n + (d[metric] as number), 0);
      for (const fn of ['sys', 'pki', 'catalog']) {
        expect(of(fn, 'ColdStart'), `${fn}: cold starts`).toBe(1);
        expect(of(fn, 'Requests'), `${fn}: requests`).toBe(requests.get(fn) ?? 0);
      }
      expect(of('pki', 'CertificatesIssued')).toBeGreaterThanOrEqual(2);
      for (const line of emfLines(stdout).map((e) => e.line)) expect(line).not.toMatch(/hvs\.|lk\.|-----BEGIN|www\.example\.com/);
    });
  });
}
