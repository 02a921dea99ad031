/**
 * Operator commands that need IAM, not a token: they invoke the deployed sys function directly
 * (Lambda Invoke, SigV4-signed with the caller's AWS credentials), so only a principal allowed
 * lambda:InvokeFunction on it can run them. The root token comes back in the invoke response
 * and is printed here once; it never crosses API Gateway and is never logged.
 *
 *   npm run admin -- init           [--stage dev] [--region us-east-1] [--function <name>]
 *   npm run admin -- generate-root  [same options]
 *
 * The local server (`npm start`) has no sys function: its lost root token is replaced with
 *
 *   npm run admin -- generate-root --local  [--data-dir data]
 *
 * run with the server stopped, on its data directory (DATA_DIR, default ./data): reading that
 * directory is the credential (lib/local/root.ts); the new token is printed once and written to
 * DATA_DIR/root-token.
 *
 * Credentials: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN) in the
 * environment; for a profile or SSO: eval "$(aws configure export-credentials --format env)".
 * LAMBDA_ENDPOINT points the call at a Lambda-compatible endpoint (tests).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LambdaInvoker } from '../lib/aws/lambda-invoke';
import { generateLocalRoot } from '../lib/local/root';

export const COMMANDS = ['init', 'generate-root'] as const;
type Command = (typeof COMMANDS)[number];

export interface AdminOptions {
  command: Command;
  functionName: string;
  region: string;
  /** generate-root --local: the local data directory to make the token on, instead of AWS. */
  localDataDir?: string;
}

const USAGE =
  'usage: npm run admin -- init|generate-root [--stage dev] [--region us-east-1] [--function <sys function name>]\n' +
  '       npm run admin -- generate-root --local [--data-dir data]   (the local server, stopped)';

/** The command line: the command and which sys function (the framework names it latchkey-<stage>-sys). */
export function parseAdminArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): AdminOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stage: { type: 'string', default: 'dev' },
      region: { type: 'string' },
      function: { type: 'string' },
      local: { type: 'boolean', default: false },
      'data-dir': { type: 'string' },
    },
  });
  const command = positionals[0];
  if (positionals.length !== 1 || !(COMMANDS as readonly string[]).includes(command ?? '')) throw new Error(USAGE);
  if (values.local || values['data-dir'] !== undefined) {
    if (command !== 'generate-root')
      throw new Error(`--local works with generate-root only (the local server initialises itself on its first start)\n${USAGE}`);
    if (values.stage !== 'dev' || values.region !== undefined || values.function !== undefined || !values.local) {
      throw new Error(`generate-root --local takes --data-dir only\n${USAGE}`);
    }
    return { command, functionName: '', region: '', localDataDir: resolve(values['data-dir'] ?? env.DATA_DIR ?? 'data') };
  }
  if (!/^[A-Za-z0-9-]{1,40}$/.test(values.stage)) throw new Error(`--stage ${JSON.stringify(values.stage)} is not a stage name`);
  return {
    command: command as Command,
    functionName: values.function ?? `latchkey-${values.stage}-sys`,
    region: values.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
  };
}

export interface RootAnswer {
  root_token: string;
  root_token_accessor: string;
}

export async function runAdmin(o: AdminOptions, invoker = new LambdaInvoker(o.region, process.env.LAMBDA_ENDPOINT)): Promise<RootAnswer> {
  const out = await invoker.invoke<RootAnswer>(o.functionName, { latchkey: o.command });
  if (typeof out?.root_token !== 'string') throw new Error(`${o.functionName} did not answer a root token: is it Latchkey's sys function?`);
  return out;
}

async function main(): Promise<void> {
  try {
    const o = parseAdminArgs(process.argv.slice(2));
    if (o.localDataDir !== undefined) {
      const out = await generateLocalRoot({ dataDir: o.localDataDir });
      process.stdout.write(
        `New root token made (local data directory ${o.localDataDir}). Root token, shown once; also in ${out.file}, mode 0600:\n${out.rootToken}\n` +
          `Its accessor (revoke it later with auth/token/revoke-accessor): ${out.accessor}\n`,
      );
      return;
    }
    const out = await runAdmin(o);
    const what = o.command === 'init' ? 'Initialized' : 'New root token made';
    process.stdout.write(
      `${what} (${o.functionName}). Root token, shown once:\n${out.root_token}\n` +
        `Its accessor (revoke it later with auth/token/revoke-accessor): ${out.root_token_accessor}\n`,
    );
  } catch (e) {
    process.stderr.write(`admin: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]).replace(/\.ts$/, '') === resolve(import.meta.dirname, 'admin')) await main();
