/**
 * Packaged functions run as Lambda runs them: each function bundled with the deploy settings
 * (bench/bundle.ts), then each invocation batch in a fresh node process (a new instance), with
 * API Gateway or scheduled events, against an embedded dynalite table initialised here. Used by
 * the tests that read what a deployed function writes to standard output (audit, EMF).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle, buildFunctions, initialisedTable, RUNNER_CONTEXT } from '../../bench/bundle';
import { startEmbeddedDynamo } from '../../lib/store/embedded';

/** Imports the bundle, invokes it with each event of LK_EVENTS in turn, writes the answers to LK_RESULTS. */
const RUNNER = `
import { writeFileSync } from 'node:fs';
const mod = await import(process.argv[2]);
${RUNNER_CONTEXT}
const results = [];
for (const event of JSON.parse(process.env.LK_EVENTS)) results.push(await mod.handler(event, context));
writeFileSync(process.env.LK_RESULTS, JSON.stringify(results));
process.exit(0);
`;

export interface Packaged {
  /** The table's root token. */
  root: string;
  /** One new instance of `name` invoked with `events` in turn: its answers and its standard output. */
  invoke<R>(name: string, events: unknown[]): Promise<{ replies: R[]; stdout: string }>;
  /** Bundles these functions now (a beforeAll's time), not on their first invocation. */
  prepare(names: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function packaged(prefix: string): Promise<Packaged> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const dynamo = await startEmbeddedDynamo();
  const { env, rootToken } = await initialisedTable(dir, dynamo.endpoint);
  const runner = join(dir, 'runner.mjs');
  await writeFile(runner, RUNNER);
  const files = new Map<string, Promise<string>>();
  const fileOf = (name: string) => {
    const fn = buildFunctions()[name];
    if (!fn) throw new Error(`no function ${name}`);
    if (!files.has(name)) files.set(name, bundle(name, fn, join(dir, 'out')));
    return files.get(name)!;
  };
  let instance = 0;
  return {
    root: rootToken,
    async invoke<R>(name: string, events: unknown[]) {
      const file = await fileOf(name);
      const results = join(dir, `${name}-${++instance}.json`);
      const childEnv: NodeJS.ProcessEnv = {
        ...env,
        LOG_LEVEL: 'info',
        AWS_LAMBDA_FUNCTION_NAME: `latchkey-dev-${name}`,
        LK_EVENTS: JSON.stringify(events),
        LK_RESULTS: results,
      };
      delete childEnv.AUDIT_DEVICES;
      const stdout = await run(runner, pathToFileURL(file).href, childEnv, name);
      return { replies: JSON.parse(await readFile(results, 'utf8')) as R[], stdout };
    },
    async prepare(names) {
      await Promise.all(names.map(fileOf));
    },
    async close() {
      await dynamo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function run(runner: string, url: string, env: NodeJS.ProcessEnv, name: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [runner, url], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${name} exited ${code}: ${err}`))));
  });
}
