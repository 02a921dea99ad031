/**
 * The distributed CLI: `npm run build:cli` makes dist/latchkey.mjs, one file that runs with
 * plain `node` from anywhere (no node_modules beside it), against the local service.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocal, type LocalService } from '../../../lib/local/service';
import { startStsFake, type StsFake } from '../../fakes/sts/server';
import { freshHome, ROOT_DIR, runCli } from './run-cli';

let local: LocalService;
let sts: StsFake;

beforeAll(async () => {
  local = await startLocal({ dataDir: mkdtempSync(join(tmpdir(), 'latchkey-cli-build-')), port: 0, quiet: true });
  sts = await startStsFake();
}, 60_000);

afterAll(async () => {
  await local?.close();
  await sts?.close();
});

it('npm run build:cli makes a self-contained dist/latchkey.mjs that reads, writes and logs in', async () => {
  execFileSync('npm', ['run', '--silent', 'build:cli'], { cwd: ROOT_DIR, stdio: 'pipe' });
  const alone = join(mkdtempSync(join(tmpdir(), 'latchkey-dist-')), 'latchkey.mjs');
  copyFileSync(join(ROOT_DIR, 'dist/latchkey.mjs'), alone);
  const home = freshHome();
  const env = { HOME: home, LATCHKEY_ADDR: local.url };
  const health = await runCli(['read', '-field=initialized', 'sys/health'], { env, bin: alone });
  expect(health).toEqual({ code: 0, stdout: 'true', stderr: '' });
  expect((await runCli(['login', local.rootToken!], { env, bin: alone })).code).toBe(0);
  expect((await runCli(['kv', 'put', 'secret/dist', 'a=1'], { env, bin: alone })).code).toBe(0);
  expect(await runCli(['kv', 'get', '-field=a', 'secret/dist'], { env, bin: alone })).toEqual({ code: 0, stdout: '1', stderr: '' });
  expect((await runCli(['read', '-nope'], { env, bin: alone })).code).toBe(2);
  // The bundled AWS credential chain: environment credentials sign the login.
  const alice = sts.addUser('alice').credentials;
  const root = { 'x-vault-token': local.rootToken!, 'content-type': 'application/json' };
  const post = (path: string, body: unknown) =>
    fetch(`${local.url}/v1/${path}`, { method: 'POST', headers: root, body: JSON.stringify(body) });
  expect((await post('auth/aws/config/client', { sts_endpoint: sts.endpoint })).status).toBe(204);
  expect(
    (await post('auth/aws/role/dev', { auth_type: 'iam', bound_iam_principal_arn: 'arn:aws:iam::123456789012:user/alice' })).status,
  ).toBe(204);
  const awsEnv = {
    HOME: freshHome(),
    LATCHKEY_ADDR: local.url,
    AWS_ACCESS_KEY_ID: alice.accessKeyId,
    AWS_SECRET_ACCESS_KEY: alice.secretAccessKey,
  };
  const aws = await runCli(['login', '-method=aws', '-token-only', 'role=dev'], { env: awsEnv, bin: alone });
  expect(aws.code, aws.stderr).toBe(0);
  expect(aws.stdout).toMatch(/^lk\./);
}, 120_000);
