/**
 * Deployed bundle size and cold start, per function: each function of serverless.yml (the
 * list from infra/functions.cjs) is bundled with the esbuild settings serverless.yml uses
 * (infra/esbuild.cjs), then a fresh `node` process imports the bundle and serves one first
 * request (sys: GET /v1/sys/health as an API Gateway v2 event; sweeper: one scheduled event)
 * against a dynalite server started here, on an initialised table, with the local key file.
 * Each process is a cold start: module load and top-level code are what Lambda bills as Init.
 *
 *   npx tsx bench/bundle.ts            (5 cold starts per function)
 *   BENCH_RUNS=10 npx tsx bench/bundle.ts
 *   BENCH_FUNCTIONS=pki,ssh npx tsx bench/bundle.ts   (only those functions)
 *
 * Targets: bundle < 1 MB, cold init < 100 ms median (issue 30). Figures are for this machine's node, not a
 * Lambda arm64 sandbox; the KMS client is loaded (it is in the bundle) but not called.
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { readEnvironment } from '../lib/config';
import { depsFromEnvironment, dynamoClient } from '../lib/composition';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import { ensureTable } from '../lib/store/setup';
import { initialize } from '../lib/sys/init';
import { httpEvent, scheduledEvent } from '../test/helpers/apigw';

export interface FunctionDef {
  handler: string;
  memorySize: number;
  events: ({ httpApi: { method: string; path: string } } | { schedule: string })[];
}
const requireCjs = createRequire(import.meta.url);
const settings = requireCjs('../infra/esbuild.cjs') as { esbuild: Record<string, unknown> };
export const { buildFunctions } = requireCjs('../infra/functions.cjs') as { buildFunctions: () => Record<string, FunctionDef> };

const ROOT = join(import.meta.dirname, '..');
const KB = 1024;
const MB = 1024 * KB;
const TARGET_BYTES = MB;
const TARGET_INIT_MS = 100;

export interface ColdStart {
  /** Node bootstrap until the runner's first line (performance.now() there). */
  bootMs: number;
  /** import() of the bundle: parse, evaluate, top-level code (deps, clients, app). */
  importMs: number;
  /** The first handler call, first DynamoDB connection included. */
  firstResponseMs: number;
  /** The same request again in the same process: what the first one costs over a warm one. */
  secondResponseMs: number;
  /** Spawn to exit, seen from here. */
  processMs: number;
  status: number | string;
}

export interface FunctionFigures {
  name: string;
  request: string;
  bytes: number;
  kb: number;
  deflatedKb: number;
  runs: ColdStart[];
  medianImportMs: number;
  medianFirstResponseMs: number;
  medianSecondResponseMs: number;
  medianInitMs: number;
  maxInitMs: number;
  underSizeTarget: boolean;
  underInitTarget: boolean;
}

export interface BundleBenchResult {
  node: string;
  runsPerFunction: number;
  targets: { bytes: number; initMs: number };
  functions: FunctionFigures[];
}

/** A Lambda context as runner source: `context`, whose remaining time counts down from 29 s. */
export const RUNNER_CONTEXT = `
const deadline = Date.now() + 29000;
const context = {
  callbackWaitsForEmptyEventLoop: true, functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:bench', memoryLimitInMB: '512',
  awsRequestId: 'bench', logGroupName: '/aws/lambda/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => deadline - Date.now(),
};
`;

/** The runner each cold process executes: import, one invocation, figures on stdout. */
export const RUNNER = `
const bootMs = performance.now();
const mod = await import(process.argv[2]);
const imported = performance.now();
${RUNNER_CONTEXT}
const result = await mod.handler(JSON.parse(process.env.BENCH_EVENT), context);
const done = performance.now();
await mod.handler(JSON.parse(process.env.BENCH_EVENT), context);
const again = performance.now();
process.stdout.write(JSON.stringify({
  bootMs, importMs: imported - bootMs, firstResponseMs: done - imported, secondResponseMs: again - done,
  status: result && typeof result.statusCode === 'number' ? result.statusCode : 'report',
}));
process.exit(0);
`;

/** The first request each function is timed on. */
export function firstRequest(name: string, fn: FunctionDef): { label: string; event: unknown } {
  if (name === 'sys') return { label: 'GET /v1/sys/health', event: httpEvent('GET', '/v1/sys/health') };
  const route = fn.events.find((e) => 'httpApi' in e);
  if (!route) return { label: 'scheduled event', event: scheduledEvent() };
  const path = route.httpApi.path.replace('{proxy+}', '');
  return { label: `GET ${path}`, event: httpEvent('GET', path) };
}

export async function bundle(name: string, fn: FunctionDef, outdir: string): Promise<string> {
  const entry = join(ROOT, `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.ts`);
  await build({ ...settings.esbuild, entryPoints: [entry], outdir, outExtension: { '.js': '.mjs' }, logLevel: 'error' });
  return join(outdir, `${name}.mjs`);
}

/** Runs `runner` on the bundle `file` in a fresh node, BENCH_EVENT = `event`; its stdout is JSON figures. */
export function coldStart<T extends object = Omit<ColdStart, 'processMs'>>(
  runner: string,
  file: string,
  event: unknown,
  env: NodeJS.ProcessEnv,
): Promise<T & { processMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [runner, pathToFileURL(file).href], {
      env: { ...env, BENCH_EVENT: JSON.stringify(event) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const processMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`cold start of ${file} exited ${code}: ${err.trim()}`));
      try {
        // The figures are the last line: the audit log's stdout device (the deployed default) prints records before them.
        resolve({ ...(JSON.parse(out.trim().split('\n').at(-1) ?? '') as T), processMs });
      } catch {
        reject(new Error(`cold start of ${file} printed no figures: ${out} ${err}`));
      }
    });
  });
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * The bench's environment for a function process (table `bench` at `endpoint`, the local key
 * file in `dir`), on a table created and initialised here, so health answers 200 as it does in
 * service; with the root token, for benches that set more up.
 */
export async function initialisedTable(dir: string, endpoint: string): Promise<{ env: NodeJS.ProcessEnv; rootToken: string }> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TABLE_NAME: 'bench',
    DYNAMODB_ENDPOINT: endpoint,
    LOCAL_KEY_FILE: join(dir, 'local.key'),
    AWS_REGION: 'us-east-1',
    LOG_LEVEL: 'silent',
    NODE_NO_WARNINGS: '1',
  };
  const deps = depsFromEnvironment(readEnvironment(env));
  await ensureTable(dynamoClient(deps.env), 'bench');
  const { rootToken } = await initialize(deps);
  return { env, rootToken };
}

export async function run(options: { runs?: number; quiet?: boolean; only?: string[] } = {}): Promise<BundleBenchResult> {
  const runs = options.runs ?? 5;
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-bundle-'));
  const dynamo = await startEmbeddedDynamo();
  try {
    const { env } = await initialisedTable(dir, dynamo.endpoint);
    const runner = join(dir, 'runner.mjs');
    await writeFile(runner, RUNNER);
    const functions: FunctionFigures[] = [];
    for (const [name, fn] of Object.entries(buildFunctions())) {
      if (options.only && !options.only.includes(name)) continue;
      const file = await bundle(name, fn, join(dir, 'out'));
      const bytes = (await stat(file)).size;
      const deflated = deflateRawSync(await readFile(file), { level: 9 }).length;
      const { label, event } = firstRequest(name, fn);
      const cold: ColdStart[] = [];
      for (let i = 0; i < runs; i++) cold.push(await coldStart(runner, file, event, env));
      const inits = cold.map((c) => c.importMs + c.firstResponseMs);
      functions.push({
        name,
        request: label,
        bytes,
        kb: round(bytes / KB),
        deflatedKb: round(deflated / KB),
        runs: cold.map((c) => ({
          ...c,
          bootMs: round(c.bootMs),
          importMs: round(c.importMs),
          firstResponseMs: round(c.firstResponseMs),
          secondResponseMs: round(c.secondResponseMs),
          processMs: round(c.processMs),
        })),
        medianImportMs: round(median(cold.map((c) => c.importMs))),
        medianFirstResponseMs: round(median(cold.map((c) => c.firstResponseMs))),
        medianSecondResponseMs: round(median(cold.map((c) => c.secondResponseMs))),
        medianInitMs: round(median(inits)),
        maxInitMs: round(Math.max(...inits)),
        underSizeTarget: bytes < TARGET_BYTES,
        underInitTarget: median(inits) < TARGET_INIT_MS,
      });
    }
    const result = { node: process.version, runsPerFunction: runs, targets: { bytes: TARGET_BYTES, initMs: TARGET_INIT_MS }, functions };
    if (!options.quiet) console.log(formatTable(result));
    return result;
  } finally {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatTable(r: BundleBenchResult): string {
  const head = [
    'function',
    'first request',
    'bytes',
    'KB',
    'zip KB',
    'import ms',
    'first resp ms',
    'init ms (median)',
    'init ms (max)',
    '2nd resp ms',
    'process ms',
    'status',
  ];
  const rows = r.functions.map((f) => [
    f.name,
    f.request,
    String(f.bytes),
    String(f.kb),
    `~${f.deflatedKb}`,
    String(f.medianImportMs),
    String(f.medianFirstResponseMs),
    `${f.medianInitMs}${f.underInitTarget ? '' : ' (over)'}`,
    String(f.maxInitMs),
    String(f.medianSecondResponseMs),
    String(round(median(f.runs.map((c) => c.processMs)))),
    [...new Set(f.runs.map((c) => String(c.status)))].join(','),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const over = r.functions.filter((f) => !f.underSizeTarget).map((f) => f.name);
  return [
    `bundle bench: node ${r.node}, ${r.runsPerFunction} cold starts per function (init = import + first response), targets < ${r.targets.bytes / MB} MB, < ${r.targets.initMs} ms`,
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    over.length ? `over the size target: ${over.join(', ')}` : 'every bundle is under the size target',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.env.BENCH_RUNS ?? 5);
  const only = process.env.BENCH_FUNCTIONS?.split(',').filter(Boolean);
  await run({ runs: Number.isInteger(n) && n > 0 ? n : 5, ...(only?.length ? { only } : {}) });
}
