/**
 * A client generated from the OpenAPI document with openapi-typescript compiles (tsc, strict) and,
 * through openapi-fetch, round-trips a PKI issue and a catalog KV write against a served service.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../../../lib/engine-list';
import { listen, type Served } from '../../../lib/local/http-server';
import { call, createTestService, type TestService } from '../../helpers/service';

// Inside the repository's node_modules, so that the client resolves openapi-fetch from there.
const dir = join(import.meta.dirname, '../../../node_modules/.cache', `latchkey-openapi-${process.pid}`);

/** The client a user would write over the generated types; compiled strict, then run. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './schema';

export async function roundTrip(baseUrl: string, token: string): Promise<{ certificate: unknown; stored: unknown; value: string }> {
  const client = createClient<paths>({ baseUrl, headers: { 'X-Vault-Token': token, 'X-Consul-Token': token } });
  const root = await client.POST('/pki/root/generate/{exported}', { params: { path: { exported: 'internal' } }, body: { common_name: 'Client Root' } });
  if (root.error !== undefined || !root.response.ok) throw new Error('root: ' + root.response.status);
  const role = await client.POST('/pki/roles/{name}', { params: { path: { name: 'web' } }, body: { allowed_domains: ['example.com'], allow_subdomains: true } });
  if (!role.response.ok) throw new Error('role: ' + role.response.status);
  const issued = await client.POST('/pki/issue/{name}', { params: { path: { name: 'web' } }, body: { common_name: 'a.example.com', ttl: '1h' } });
  if (issued.error !== undefined) throw new Error('issue: ' + issued.error.errors.join(', '));
  const certificate = issued.data?.data?.certificate;
  const put = await client.PUT('/kv/{key}', {
    params: { path: { key: 'app/config' }, query: { flags: '42' } },
    body: 'value as sent',
    bodySerializer: (body: string) => body,
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  const got = await client.GET('/kv/{key}', { params: { path: { key: 'app/config' }, query: { raw: true } }, parseAs: 'text' });
  return { certificate, stored: put.data, value: got.data ?? '' };
}
`;

let svc: TestService;
let server: Served;

beforeAll(async () => {
  svc = await createTestService({ engines: ENGINES });
  server = await listen(svc.app.fetch, { port: 0 });
  mkdirSync(dir, { recursive: true });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function typeErrors(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: [],
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('a client generated with openapi-typescript', () => {
  it('compiles, and round-trips a PKI issue and a catalog KV write', async () => {
    const doc = (await call(svc.app, 'GET', '/v1/sys/openapi', { token: svc.root })).json!;
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(doc as never)));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    expect(typeErrors(join(dir, 'client.ts'))).toEqual([]);

    const js = ts.transpileModule(CLIENT, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(dir, 'client.mjs'), js);
    const client = (await import(join(dir, 'client.mjs'))) as { roundTrip(base: string, token: string): Promise<Record<string, unknown>> };
    const out = await client.roundTrip(`${server.url}/v1`, svc.root);
    expect(out.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(out.stored).toBe(true);
    expect(out.value).toBe('value as sent');
  });
});
