/**
 * Warm Lambda duration per request, for README's cost table: the `pki` and `catalog` functions
 * are bundled as bench/bundle.ts bundles them (the deployed esbuild settings), then ONE node
 * process per function imports its bundle and calls its handler with API Gateway v2 events,
 * against dynalite on a table initialised as bench/bundle.ts does:
 *   - pki: a root CA and a role storing certificates (EC P-256 leaves) are set up, then N=300
 *     `POST pki/issue/bench` with a token whose policy grants only that path;
 *   - catalog (deployed settings: ACLs on, default deny): a key is written, then N=1000
 *     `GET kv/<key>` with a token whose policy grants `catalog/kv/*` read.
 * Printed per request: handler wall time (median, p90), the handler process's CPU time (what
 * scales with Lambda's CPU share at the configured memory), and the DynamoDB calls counted at
 * the dynalite HTTP server (by X-Amz-Target) during the timed phase.
 *
 *   npx tsx bench/lambda-duration.ts
 *   BENCH_N=100 npx tsx bench/lambda-duration.ts     (N for both functions)
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readEnvironment } from '../lib/config';
import { dynaliteWithTransactions } from '../lib/store/dynalite-transact';
import { depsFromEnvironment } from '../lib/composition';
import { setLogLevel } from '../lib/log';
import { sysFunctionApp } from '../lib/sys-function';
import { httpEvent, type HttpApiEventV2 } from '../test/helpers/apigw';
import { RUNNER_CONTEXT, buildFunctions, bundle, coldStart, initialisedTable, median, round } from './bundle';

/** What the runner is asked to do: setup requests (each must answer 2xx), then `n` timed ones. */
interface Plan {
  setup: HttpApiEventV2[];
  timed: HttpApiEventV2;
  n: number;
  warmup: number;
}

interface RunnerOutput {
  durations: number[];
  cpuMs: number;
  statuses: number[];
}

export interface DurationFigures {
  name: string;
  request: string;
  memoryMb: number;
  n: number;
  medianMs: number;
  p90Ms: number;
  cpuMsPerRequest: number;
  /** DynamoDB calls per request, by operation (X-Amz-Target without its prefix). */
  dynamoCalls: Record<string, number>;
  /** Mean and largest request body of each operation, bytes: a write's item is somewhat smaller. */
  dynamoRequestBytes: Record<string, { mean: number; max: number }>;
  dynamoCallsTotal: number;
  statuses: number[];
}

const MARK = 'Bench.Mark';

/**
 * The warm runner: stdout writes are swallowed (logs at info are built as on Lambda, not
 * printed), setup, warm-up, a mark to the store server, the timed calls, a mark again.
 */
const RUNNER = `
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = () => true;
const mod = await import(process.argv[2]);
${RUNNER_CONTEXT}
const plan = JSON.parse(process.env.BENCH_EVENT);
const mark = () => fetch(process.env.DYNAMODB_ENDPOINT, { method: 'POST', headers: { 'x-amz-target': '${MARK}' } }).then((r) => r.arrayBuffer());
for (const e of plan.setup) {
  const r = await mod.handler(e, context);
  if (r.statusCode >= 300) { process.stderr.write(e.rawPath + ' answered ' + r.statusCode + ': ' + r.body); process.exit(1); }
}
const fresh = (i) => ({ ...plan.timed, requestContext: { ...plan.timed.requestContext, requestId: 'bench-' + i, timeEpoch: Date.now() } });
for (let i = 0; i < plan.warmup; i++) await mod.handler(fresh(-i - 1), context);
await mark();
const durations = [];
const statuses = new Set();
const cpu = process.cpuUsage();
for (let i = 0; i < plan.n; i++) {
  const event = fresh(i);
  const t = performance.now();
  const r = await mod.handler(event, context);
  durations.push(performance.now() - t);
  statuses.add(r.statusCode);
}
const used = process.cpuUsage(cpu);
await mark();
write(JSON.stringify({ durations, cpuMs: (used.user + used.system) / 1000, statuses: [...statuses] }));
process.exit(0);
`;

/** Requests and their body bytes, by operation (X-Amz-Target without its prefix). */
type Counted = Record<string, { calls: number; bytes: number; max: number }>;

/** dynalite with a listener that counts requests by X-Amz-Target between the runner's marks. */
async function countingDynamo(): Promise<{ endpoint: string; counts: () => Counted; close: () => Promise<void> }> {
  // dynalite as the tests and the local service run it: answering TransactWriteItems too.
  const server = dynaliteWithTransactions({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let counting = false;
  let counted: Counted = {};
  server.prependListener('request', (req: IncomingMessage) => {
    const target = String(req.headers['x-amz-target'] ?? '');
    if (target === MARK) {
      if (!counting) counted = {};
      counting = !counting;
    } else if (counting) {
      const op = (counted[target.slice(target.indexOf('.') + 1)] ??= { calls: 0, bytes: 0, max: 0 });
      const bytes = Number(req.headers['content-length'] ?? 0);
      op.calls++;
      op.bytes += bytes;
      op.max = Math.max(op.max, bytes);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    counts: () => counted,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const token = (t: string) => ({ headers: { 'x-vault-token': t } });

function pkiPlan(root: string, issuer: string, n: number): Plan {
  return {
    setup: [
      httpEvent('POST', '/v1/pki/root/generate/internal', {
        ...token(root),
        body: { common_name: 'Bench Root CA', key_type: 'ec', key_bits: 256, ttl: '87600h' },
      }),
      httpEvent('POST', '/v1/pki/roles/bench', {
        ...token(root),
        body: { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', key_bits: 256, ttl: '72h' },
      }),
    ],
    timed: httpEvent('POST', '/v1/pki/issue/bench', { ...token(issuer), body: { common_name: 'svc.example.com' } }),
    n,
    warmup: 20,
  };
}

const KV_VALUE = JSON.stringify({ url: 'postgres://db.internal:5432/app', pool: 20, timeout_ms: 1500, feature_flags: ['a', 'b', 'c'] });

function catalogPlan(root: string, reader: string, n: number): Plan {
  const consul = (t: string) => ({ headers: { 'x-consul-token': t } });
  return {
    setup: [httpEvent('PUT', '/v1/kv/bench/app/config', { ...consul(root), body: KV_VALUE })],
    timed: httpEvent('GET', '/v1/kv/bench/app/config', consul(reader)),
    n,
    warmup: 50,
  };
}

/** The two bench policies, and a token holding each, through the sys API (as a client makes them). */
async function benchTokens(env: NodeJS.ProcessEnv, root: string): Promise<{ issuer: string; reader: string }> {
  const sys = sysFunctionApp(depsFromEnvironment(readEnvironment(env)));
  const send = async (method: string, path: string, body: object) => {
    const r = await sys.request(`http://localhost/v1/${path}`, {
      method,
      headers: { 'x-vault-token': root, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}`);
    return r.status === 200 ? ((await r.json()) as { auth?: { client_token: string } }) : {};
  };
  const tokenFor = async (name: string, policy: string) => {
    await send('PUT', `sys/policy/${name}`, { policy });
    return (await send('POST', 'auth/token/create', { policies: [name], ttl: '24h' })).auth!.client_token;
  };
  return {
    issuer: await tokenFor('bench-issue', 'path "pki/issue/bench" { capabilities = ["update"] }'),
    reader: await tokenFor('bench-kv-read', 'path "catalog/kv/*" { capabilities = ["read"] }'),
  };
}

function figures(name: string, request: string, memoryMb: number, out: RunnerOutput, counted: Counted): DurationFigures {
  const n = out.durations.length;
  const sorted = [...out.durations].sort((a, b) => a - b);
  const ops = Object.entries(counted);
  return {
    name,
    request,
    memoryMb,
    n,
    medianMs: round(median(sorted), 2),
    p90Ms: round(sorted[Math.ceil(0.9 * n) - 1]!, 2),
    cpuMsPerRequest: round(out.cpuMs / n, 2),
    dynamoCalls: Object.fromEntries(ops.map(([op, c]) => [op, round(c.calls / n, 2)])),
    dynamoRequestBytes: Object.fromEntries(ops.map(([op, c]) => [op, { mean: Math.round(c.bytes / c.calls), max: c.max }])),
    dynamoCallsTotal: round(ops.reduce((a, [, c]) => a + c.calls, 0) / n, 2),
    statuses: out.statuses,
  };
}

export async function run(options: { n?: { pki: number; catalog: number }; quiet?: boolean } = {}): Promise<DurationFigures[]> {
  const n = options.n ?? { pki: 300, catalog: 1000 };
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-duration-'));
  const dynamo = await countingDynamo();
  setLogLevel('silent');
  try {
    const { env: base, rootToken } = await initialisedTable(dir, dynamo.endpoint);
    const defs = buildFunctions();
    const runner = join(dir, 'runner.mjs');
    await writeFile(runner, RUNNER);
    const file = async (name: string) => bundle(name, defs[name]!, join(dir, 'out'));
    // As on Lambda: the function's name, logs built at info (the catalog's settings are the deployed ones wherever it runs).
    const envFor = (name: string) => ({ ...base, LOG_LEVEL: 'info', AWS_LAMBDA_FUNCTION_NAME: `latchkey-dev-${name}` });
    const { issuer, reader } = await benchTokens(base, rootToken);

    const cases = [
      { name: 'pki', request: 'POST pki/issue/bench', plan: pkiPlan(rootToken, issuer, n.pki) },
      { name: 'catalog', request: 'GET kv/<key>', plan: catalogPlan(rootToken, reader, n.catalog) },
    ];
    const result: DurationFigures[] = [];
    for (const c of cases) {
      const bundled = await file(c.name);
      // The 1 s auth cache (default) serves repeated token and policy reads; with it off every
      // request reads them, as each request does when an instance sees less than one a second.
      for (const authCache of ['1000', '0']) {
        const plan = authCache === '0' ? { ...c.plan, setup: [] } : c.plan;
        const out = await coldStart<RunnerOutput>(runner, bundled, plan, { ...envFor(c.name), AUTH_CACHE_MS: authCache });
        result.push(
          figures(c.name, `${c.request}, auth cache ${authCache === '0' ? 'off' : '1 s'}`, defs[c.name]!.memorySize, out, dynamo.counts()),
        );
      }
    }
    if (!options.quiet) console.log(formatTable(result));
    return result;
  } finally {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatTable(rows: DurationFigures[]): string {
  const lines = rows.map((f) => {
    const calls = Object.entries(f.dynamoCalls)
      .map(([op, c]) => `${op} ${c}, mean ${f.dynamoRequestBytes[op]!.mean} B, max ${f.dynamoRequestBytes[op]!.max} B`)
      .join(', ');
    return `${f.name.padEnd(8)} ${f.request}: n=${f.n}, ${f.memoryMb} MB, median ${f.medianMs} ms, p90 ${f.p90Ms} ms, CPU ${f.cpuMsPerRequest} ms/request, DynamoDB calls/request ${f.dynamoCallsTotal} (${calls}), status ${f.statuses.join(',')}`;
  });
  return [
    `lambda duration bench: node ${process.version}, one warm process per function, handler called with API Gateway v2 events`,
    ...lines,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const n = Number(process.env.BENCH_N);
  await run(Number.isInteger(n) && n > 0 ? { n: { pki: n, catalog: n } } : {});
}
