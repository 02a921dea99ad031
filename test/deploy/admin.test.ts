/**
 * `npm run admin -- init|generate-root`: the deployer initialises through IAM. The command
 * invokes the sys function (here its real handler behind the Lambda Invoke fake, which checks
 * SigV4), the root token comes back only in the invoke response; a caller without the right
 * credentials gets nothing.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LambdaInvoker } from '../../lib/aws/lambda-invoke';
import { createDeps } from '../../lib/composition';
import type { Deps } from '../../lib/deps';
import { LocalKeyWrapper } from '../../lib/keys/local-key';
import { sysFunction } from '../../lib/lambda';
import { sysFunctionApp } from '../../lib/sys-function';
import { parseAdminArgs, runAdmin } from '../../scripts/admin';
import { startLambdaFake, type LambdaFake } from '../fakes/lambda-server';
import { call } from '../helpers/service';
import { createTestStore } from '../helpers/store';

const ROOT = join(import.meta.dirname, '..', '..');
const SYS = 'latchkey-dev-sys';
let deps: Deps;
let app: ReturnType<typeof sysFunctionApp>;
let fake: LambdaFake;

beforeAll(async () => {
  const { store } = await createTestStore();
  deps = createDeps({ store, wrapper: new LocalKeyWrapper(randomBytes(32)) });
  app = sysFunctionApp(deps);
  fake = await startLambdaFake({ [SYS]: sysFunction(app, deps) as (e: unknown) => Promise<unknown> });
});
afterAll(() => fake?.close());

const admin = (args: string[], credentials = fake.credentials) =>
  promisify(execFile)('npx', ['tsx', 'scripts/admin.ts', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      LAMBDA_ENDPOINT: fake.endpoint,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_REGION: 'us-east-1',
      NODE_NO_WARNINGS: '1',
    },
  });

describe('npm run admin', () => {
  it('parses the command, the stage and the function', () => {
    expect(parseAdminArgs(['init'], {})).toEqual({ command: 'init', functionName: 'latchkey-dev-sys', region: 'us-east-1' });
    expect(parseAdminArgs(['generate-root', '--stage', 'prod', '--region', 'eu-west-1'], {})).toMatchObject({
      functionName: 'latchkey-prod-sys',
      region: 'eu-west-1',
    });
    expect(parseAdminArgs(['init', '--function', 'my-sys'], { AWS_REGION: 'ap-south-1' })).toMatchObject({
      functionName: 'my-sys',
      region: 'ap-south-1',
    });
    expect(() => parseAdminArgs(['unseal'], {})).toThrow(/usage/);
    expect(() => parseAdminArgs([], {})).toThrow(/usage/);
    expect(() => parseAdminArgs(['init', '--stage', 'a/b'], {})).toThrow(/not a stage name/);
  });

  it('refuses a caller whose credentials the invoke API does not accept, and initialises nothing', async () => {
    await expect(admin(['init'], { accessKeyId: 'AKIDSOMEONEELSE', secretAccessKey: 'wrong' })).rejects.toMatchObject({ code: 1 });
    expect((await call(app, 'GET', '/v1/sys/init')).json).toEqual({ initialized: false });
  });

  it('init prints the root token once, the public route stays closed, a second init fails', async () => {
    const { stdout } = await admin(['init']);
    const token = /Root token, shown once:\n(\S+)\n/.exec(stdout)?.[1];
    expect(token).toBeDefined();
    const self = await call(app, 'GET', '/v1/auth/token/lookup-self', { token });
    expect(self.json!.data.policies).toEqual(['root']);
    expect(fake.calls.map((c) => c.event)).toEqual([{ latchkey: 'init' }]);

    const again = await admin(['init']).catch((e: { code: number; stderr: string }) => e);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringMatching(/already initialized/) });
    // Initialised: the reference's answer, which clients match on; never a token.
    const put = await call(app, 'PUT', '/v1/sys/init', { body: {} });
    expect(put.status).toBe(400);
    expect(put.json).toEqual({ errors: ['Vault is already initialized'] });
  });

  it('generate-root makes another root token; the first is revoked by its accessor', async () => {
    const invoker = new LambdaInvoker('us-east-1', fake.endpoint, () => fake.credentials);
    const first = await runAdmin({ command: 'generate-root', functionName: SYS, region: 'us-east-1' }, invoker);
    const second = await runAdmin({ command: 'generate-root', functionName: SYS, region: 'us-east-1' }, invoker);
    expect(second.root_token).not.toBe(first.root_token);
    const r = await call(app, 'POST', '/v1/auth/token/revoke-accessor', {
      token: second.root_token,
      body: { accessor: first.root_token_accessor },
    });
    expect(r.status).toBe(204);
    expect((await call(app, 'GET', '/v1/auth/token/lookup-self', { token: first.root_token })).status).toBe(403);
    expect((await call(app, 'GET', '/v1/auth/token/lookup-self', { token: second.root_token })).status).toBe(200);
  });
});
