/**
 * The catalog is closed wherever its code runs: ACLs on, default deny (infra/mounts.json), so an
 * anonymous caller can neither write nor read a key nor register a node. The packaged catalog
 * bundle (functions/catalog.ts built with the deployed esbuild settings, infra/esbuild.cjs) is
 * imported and called with no Lambda variable set, as another harness (a container, a test
 * runner, another FaaS) would run it. Only the local server asks for the file's open `local`
 * overlay, by name (lib/local/service.ts), and `npm start` keeps its documented open catalog.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyResult } from 'hono/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogEntry, catalogSettings } from '../../lib/catalog/settings';
import { depsFromEnvironment } from '../../lib/composition';
import { startLocal, type LocalService } from '../../lib/local/service';
import { sysFunctionApp } from '../../lib/sys-function';
import { initialize } from '../../lib/sys/init';
import { asLambdaEvent, httpEvent, lambdaContext, type HttpEventOptions } from '../helpers/apigw';
import { lambdaEnvironment, type LambdaEnvironment } from '../helpers/lambda-env';
import { call } from '../helpers/service';

const ROOT = join(import.meta.dirname, '..', '..');
const { esbuild } = createRequire(import.meta.url)('../../infra/esbuild.cjs') as { esbuild: Record<string, unknown> };
/** What marks a process as a Lambda's: none of it is set while the bundle runs here. */
const isLambdaVariable = (name: string) => /^(AWS_LAMBDA_|LAMBDA_)/.test(name) || name === 'AWS_EXECUTION_ENV';

describe('the catalog settings', () => {
  it('are ACLs on with default deny unless the local overlay is asked for, whatever the environment says', () => {
    for (const env of [{}, { AWS_LAMBDA_FUNCTION_NAME: 'latchkey-dev-catalog' }]) {
      expect(catalogSettings({}, env)).toMatchObject({ aclEnabled: true, defaultPolicy: 'deny' });
      expect(catalogSettings(undefined, env)).toMatchObject({ aclEnabled: true, defaultPolicy: 'deny' });
      expect(catalogSettings({ overlay: 'local' }, env)).toMatchObject({ aclEnabled: false, defaultPolicy: 'allow' });
    }
  });

  it('lay the file’s local entry over the deployed ones only when asked, and only where the file has one', () => {
    const section = { acl: { enabled: true }, local: { acl: { enabled: false } } };
    expect(catalogEntry(section)).toEqual({ acl: { enabled: true } });
    expect(catalogEntry(section, { overlay: 'local' })).toEqual({ acl: { enabled: false } });
    expect(catalogEntry({ acl: { enabled: true } }, { overlay: 'local' })).toEqual({ acl: { enabled: true } });
  });
});

describe('the packaged catalog bundle, run with no Lambda variable set', () => {
  type Handler = (event: unknown, context: unknown) => Promise<unknown>;
  const saved = { ...process.env };
  let dir: string;
  let env: LambdaEnvironment;
  let handler: Handler;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'latchkey-catalog-bundle-'));
    await build({
      ...esbuild,
      entryPoints: [join(ROOT, 'functions', 'catalog.ts')],
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      logLevel: 'error',
    });
    for (const name of Object.keys(process.env)) if (isLambdaVariable(name)) delete process.env[name];
    env = await lambdaEnvironment('latchkey-catalog-bundle');
    process.env.LOG_LEVEL = 'silent';
    handler = ((await import(pathToFileURL(join(dir, 'catalog.mjs')).href)) as { handler: Handler }).handler;
  }, 60_000);

  afterAll(async () => {
    process.env = saved;
    await env?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const invoke = async (method: string, target: string, o: HttpEventOptions = {}) => {
    const r = (await handler(asLambdaEvent(httpEvent(method, target, o)), lambdaContext('latchkey-catalog'))) as APIGatewayProxyResult;
    const text = r.isBase64Encoded ? Buffer.from(r.body, 'base64').toString() : r.body;
    return { status: r.statusCode, text, policy: (r.headers as Record<string, string | undefined>)['x-catalog-default-acl-policy'] };
  };

  it('refuses anonymous KV writes and reads and registrations; a token with a policy gets in', async () => {
    expect(Object.keys(process.env).filter(isLambdaVariable)).toEqual([]);
    const put = await invoke('PUT', '/v1/kv/app/secret', { body: 's3cret' });
    expect(put.status).toBe(403);
    expect(put.policy).toBe('deny');
    expect((await invoke('GET', '/v1/kv/app/secret')).status).toBe(403);
    expect((await invoke('PUT', '/v1/catalog/register', { body: { Node: 'n1', Address: '10.0.0.1' } })).status).toBe(403);
    expect((await invoke('GET', '/v1/catalog/nodes')).text).toBe('[]');

    // The same table, initialised as an operator would; a token whose policy names the key.
    const deps = depsFromEnvironment();
    const root = (await initialize(deps)).rootToken;
    const sys = sysFunctionApp(deps);
    const policy = { path: { 'catalog/kv/app/*': { capabilities: ['create', 'update', 'read'] } } };
    expect((await call(sys, 'PUT', '/v1/sys/policy/app', { token: root, body: { policy: JSON.stringify(policy) } })).status).toBe(204);
    const token = (await call(sys, 'POST', '/v1/auth/token/create', { token: root, body: { policies: ['app'] } })).json!.auth
      .client_token as string;
    const ok = await invoke('PUT', '/v1/kv/app/secret', { body: 's3cret', headers: { 'x-catalog-token': token } });
    expect(ok.text).toBe('true');
    expect((await invoke('GET', '/v1/kv/app/secret?raw', { headers: { 'x-catalog-token': token } })).text).toBe('s3cret');
    expect((await invoke('GET', '/v1/kv/app/secret')).status).toBe(403);
  });
});

describe('the local server (npm start)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-catalog-local-'));
  let local: LocalService | undefined;

  afterAll(async () => {
    await local?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps its documented open catalog: anonymous KV writes and reads, default policy allow', async () => {
    // startLocal is what functions/local.ts (`npm start`) runs.
    local = await startLocal({ dataDir, port: 0, quiet: true });
    const url = `${local.url}/v1/kv/dev/k`;
    const put = await fetch(url, { method: 'PUT', body: 'v' });
    expect(await put.text()).toBe('true');
    expect(put.headers.get('x-catalog-default-acl-policy')).toBe('allow');
    expect(await (await fetch(`${url}?raw`)).text()).toBe('v');
  });
});
