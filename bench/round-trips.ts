/**
 * DynamoDB round trips per request on the deployed path (issue 30): each function is bundled as
 * bench/bundle.ts bundles it (the deployed esbuild settings) and run as a warm instance, a node
 * process calling its handler with API Gateway v2 events, as bench/lambda-duration.ts runs it,
 * against dynalite behind bench/_store-proxy.ts, which holds every DynamoDB call for a fixed
 * delay (BENCH_DELAY_MS, default 5 ms: DynamoDB's round trip from Lambda in the same region)
 * and records when each call started and ended and which keys it named.
 *
 * For each request, from the calls made while its handler ran: the calls by operation, and the
 * SEQUENTIAL ROUND TRIPS, the calls left after merging those whose intervals overlap (calls in
 * flight together count once: bench/_round-trips.ts), with the handler's median latency. Two
 * modes, each on fresh instances warmed up with the same request first:
 *   - auth cache off: AUTH_CACHE_MS=0 (lib/ttl-cache.ts), so every request reads its token,
 *     accessor and policies from the store, as on an instance that sees less than a request per
 *     TTL; other per-instance state (connections, mount settings) stays warm;
 *   - auth cache on: the deployed default (AUTH_CACHE_MS unset: 1 s), the same token each time;
 *   - new instance (for information, no target): the first request of a fresh process, BENCH_COLD_N
 *     (default 3) times per request, in the first run only: every per-instance cache empty,
 *     one-time reads included (latency includes the first connection to the store).
 * Both warm modes keep the engines' own per-instance caches warm (lib/pki/cache.ts: CA, roles,
 * URLs for 2 s; lib/pki/ocsp.ts: a certificate's issuer and pre-signed answers for 60 s): an
 * instance that sees less than a request per TTL also pays those reads; the new-instance figures
 * show them.
 * Round trips and calls are those of the most common shape of request (its share is printed;
 * a request now and then pays for an expired cache entry); latency is the median over all.
 * Setup (policies, least-privilege tokens, CAs, roles, the secret id, keys) goes through the
 * same bundles with the root token and is not timed. Issue 30's targets are printed per row.
 *
 *   npx tsx bench/round-trips.ts              (table)
 *   npx tsx bench/round-trips.ts --trace      (and each request's calls in order, with keys)
 *   npx tsx bench/round-trips.ts --json
 *   BENCH_N=30 BENCH_RUNS=3 BENCH_DELAY_MS=5 BENCH_COLD_N=3 npx tsx bench/round-trips.ts
 *   BENCH_ONLY='kv/<key> (catalog' npx tsx bench/round-trips.ts   (only the requests whose label has this)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setLogLevel } from '../lib/log';
import { startInstance, writeRunner, type Instance } from './_fn-runner';
import { formatTable, formatTrace, type Mode, type ModeFigures, type RoundTripsResult, type TracedCall } from './_round-trips-report';
import { setUp, type TimedRequest } from './_round-trips-setup';
import { steps } from './_round-trips';
import { startStoreProxy, type StoreCall, type StoreProxy } from './_store-proxy';
import { buildFunctions, bundle, initialisedTable, median, round } from './bundle';

const FUNCTIONS = ['pki', 'ssh', 'catalog', 'sys', 'kv'];

interface Sample {
  ms: number;
  calls: StoreCall[];
  start: number;
  end: number;
}

/** What a call touches, without its ids: `sys|token`, `pki/pki|cert` (a query or a batch: its first key cut the same way). */
const kindOf = (c: StoreCall) => {
  const [pk, sk = ''] = (c.keys[0] ?? '').split(' | ');
  return `${pk}|${sk.split('/')[0]}${c.keys.length > 1 ? ` x${c.keys.length}` : ''}`;
};

/** A request's steps by operation and kind of record, in order: requests of one shape made the same calls. */
const shapeOf = (calls: StoreCall[]) =>
  steps(calls)
    .map((s) => s.map((c) => `${c.op.replace(/Item$/, '')} ${kindOf(c)}`).join(' + '))
    .join(' > ');

function traceOf(s: Sample): TracedCall[] {
  return steps(s.calls).flatMap((step, i) =>
    step.map((c) => ({
      step: i + 1,
      op: c.op,
      keys: c.keys,
      ...(c.condition ? { condition: c.condition } : {}),
      startMs: round(c.start - s.start, 2),
      endMs: round(c.end - s.start, 2),
      overlapped: step.length > 1,
      afterResponse: c.start > s.end,
    })),
  );
}

function modeFigures(mode: Mode, run: number, samples: Sample[]): ModeFigures {
  const counts = new Map<string, number>();
  for (const s of samples) counts.set(shapeOf(s.calls), (counts.get(shapeOf(s.calls)) ?? 0) + 1);
  const shapes = [...counts].map(([shape, count]) => ({ shape, count })).sort((a, b) => b.count - a.count);
  // The trace shown: of the requests of the common shape, the one whose latency is nearest their median (no outlier's pauses).
  const common = samples.filter((s) => shapeOf(s.calls) === shapes[0]!.shape);
  const mid = median(common.map((s) => s.ms));
  const typical = common.reduce((a, b) => (Math.abs(b.ms - mid) < Math.abs(a.ms - mid) ? b : a));
  const calls: Record<string, number> = {};
  for (const c of typical.calls) calls[c.op] = (calls[c.op] ?? 0) + 1;
  return {
    mode,
    run,
    n: samples.length,
    medianMs: round(median(samples.map((s) => s.ms)), 1),
    roundTrips: steps(typical.calls).length,
    medianRoundTrips: median(samples.map((s) => steps(s.calls).length)),
    calls,
    shapes,
    trace: traceOf(typical),
  };
}

/** `n` timed requests after `warmup` untimed ones, each with the calls the proxy saw while it ran. */
export async function measure(fn: Instance, store: StoreProxy, req: TimedRequest, n: number, warmup: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = -warmup; i < n; i++) {
    await store.take();
    const r = await fn.invoke(req.event(i));
    const calls = await store.take();
    if (r.status >= 300) throw new Error(`${req.label} answered ${r.status}: ${r.body.slice(0, 300)}`);
    if (i >= 0) samples.push({ ms: r.end - r.start, calls, start: r.start, end: r.end });
  }
  return samples;
}

async function instances(runner: string, bundles: Record<string, string>, env: NodeJS.ProcessEnv): Promise<Record<string, Instance>> {
  const list = await Promise.all(FUNCTIONS.map(async (name) => [name, await startInstance(runner, bundles[name]!, env)] as const));
  return Object.fromEntries(list);
}

const closeAll = (fns: Record<string, Instance>) => Object.values(fns).forEach((f) => f.close());

interface Options {
  n?: number;
  runs?: number;
  delayMs?: number;
  warmup?: number;
  /** First requests of a new instance per request (0: none). */
  coldN?: number;
  /** Only the requests whose label contains this (all when absent). */
  only?: string;
}

interface Bench {
  store: StoreProxy;
  runner: string;
  bundles: Record<string, string>;
  envFor: (mode: Mode | 'setup') => NodeJS.ProcessEnv;
}

/** One run: warm instances with the auth cache off, then on; then (run 1) the first request of new instances. */
async function oneRun(b: Bench, requests: TimedRequest[], o: Required<Options>, r: number, into: Map<TimedRequest, ModeFigures[]>) {
  for (const mode of ['off', 'on'] as const) {
    const fns = await instances(b.runner, b.bundles, b.envFor(mode));
    try {
      for (const req of requests) into.get(req)!.push(modeFigures(mode, r, await measure(fns[req.fn]!, b.store, req, o.n, o.warmup)));
    } finally {
      closeAll(fns);
    }
  }
  // New instances in the first run only: their shape is fixed, and each costs a process start.
  if (o.coldN === 0 || r > 1) return;
  for (const req of requests) {
    const samples: Sample[] = [];
    for (let i = 0; i < o.coldN; i++) {
      const fn = await startInstance(b.runner, b.bundles[req.fn]!, b.envFor('cold'));
      samples.push(...(await measure(fn, b.store, req, 1, 0).finally(() => fn.close())));
    }
    into.get(req)!.push(modeFigures('cold', r, samples));
  }
}

export async function run(options: Options = {}): Promise<RoundTripsResult> {
  const o = { n: 30, runs: 1, delayMs: 5, warmup: 5, coldN: 3, only: '', ...options };
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-round-trips-'));
  const store = await startStoreProxy(o.delayMs);
  setLogLevel('silent');
  try {
    const { env: base, rootToken } = await initialisedTable(dir, store.endpoint);
    const defs = buildFunctions();
    const bundles = Object.fromEntries(await Promise.all(FUNCTIONS.map(async (f) => [f, await bundle(f, defs[f]!, join(dir, 'out'))])));
    const runner = await writeRunner(dir);
    // As on Lambda: logs built at info, the function's name set (the catalog then takes its deployed settings).
    const envFor = (mode: Mode | 'setup') => ({
      ...base,
      LOG_LEVEL: 'info',
      AWS_LAMBDA_FUNCTION_NAME: 'latchkey-bench',
      ...(mode === 'off' ? { AUTH_CACHE_MS: '0' } : {}),
    });
    const setupFns = await instances(runner, bundles, envFor('setup'));
    const all = await setUp(setupFns, rootToken, dir).finally(() => closeAll(setupFns));
    const requests = all.filter((r) => r.label.includes(o.only));
    const figures = new Map<TimedRequest, ModeFigures[]>(requests.map((r) => [r, []]));
    for (let r = 1; r <= o.runs; r++) await oneRun({ store, runner, bundles, envFor }, requests, o, r, figures);
    return {
      node: process.version,
      cpus: `${cpus().length} x ${cpus()[0]?.model ?? '?'}`,
      delayMs: o.delayMs,
      n: o.n,
      coldN: o.coldN,
      runs: o.runs,
      requests: requests.map((req) => {
        const f = figures.get(req)!;
        const met = f.every((m) => m.mode === 'cold' || m.roundTrips <= req.target[m.mode]);
        return { request: req.label, fn: req.fn, target: req.target, figures: f, met };
      }),
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const int = (v: string | undefined, d: number) =>
    Number.isInteger(Number(v)) && Number(v) >= 0 && v !== '' && v !== undefined ? Number(v) : d;
  const result = await run({
    n: Math.max(1, int(process.env.BENCH_N, 30)),
    runs: Math.max(1, int(process.env.BENCH_RUNS, 1)),
    delayMs: int(process.env.BENCH_DELAY_MS, 5),
    coldN: int(process.env.BENCH_COLD_N, 3),
    only: process.env.BENCH_ONLY ?? '',
  });
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(formatTable(result));
    if (process.argv.includes('--trace')) console.log(`\n${formatTrace(result)}`);
  }
}
