/**
 * Store throughput, single-item put and get, sequential and with a few requests in flight, on
 * the local service's two persistent stores under a temp dir: the embedded store (LevelDB in
 * process, fsynced group commits; also without fsync, to show what the sync costs) and the
 * dynalite store (DynamoDB protocol over HTTP to dynalite on LevelDB, SDK client).
 *
 *   npx tsx bench/store.ts            (about 5 s per measurement; every engine)
 *   BENCH_SECONDS=2 npx tsx bench/store.ts
 *
 * Importable: `run()` returns the figures without printing (default engine: the embedded
 * store, as `npm start` runs it); `formatTable()` renders them.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoStore } from '../lib/store/dynamo-store';
import { LevelStore } from '../lib/store/level-store';
import { sdkDynamoApi } from '../lib/store/sdk-api';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import { ensureTable } from '../lib/store/setup';
import type { Json, Partition } from '../lib/store/store';

export interface Measurement {
  op: 'put' | 'get';
  concurrency: number;
  ops: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

export type StoreEngine = 'level' | 'level-nosync' | 'dynalite';

const ENGINE_NAMES: Record<StoreEngine, string> = {
  level: 'embedded store (LevelDB in process, fsync per group commit)',
  'level-nosync': 'embedded store without fsync (LOCAL_STORE_SYNC=false)',
  dynalite: 'dynalite (persistent, LevelDB, over HTTP, SDK client)',
};

export interface StoreBenchResult {
  engine: string;
  durationMs: number;
  valueBytes: number;
  results: Measurement[];
}

export interface StoreBenchOptions {
  /** Time spent on each measurement. */
  durationMs?: number;
  /** Requests in flight for the concurrent measurements. */
  concurrency?: number;
  /** Default: the embedded store. */
  engine?: StoreEngine;
}

const VALUE: Json = {
  kind: 'secret',
  data: { username: 'service-account', password: 'c2VjcmV0LXZhbHVlLWZvci1iZW5jaA' },
  metadata: { created: '2026-01-01T00:00:00Z', version: 3, tags: ['bench', 'store'] },
};

/** A partition of a fresh store of `engine` under `dir`, and how to close it. */
async function openEngine(engine: StoreEngine, dir: string): Promise<{ part: Partition; close: () => Promise<void> }> {
  if (engine !== 'dynalite') {
    const store = await LevelStore.open(dir, { sync: engine === 'level' });
    return { part: store.partition('bench'), close: () => store.close() };
  }
  const server = await startEmbeddedDynamo({ path: dir });
  const client = new DynamoDBClient({
    endpoint: server.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    maxAttempts: 1,
  });
  await ensureTable(client, 'bench');
  return {
    part: new DynamoStore(sdkDynamoApi(client), 'bench').partition('bench'),
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

export async function run(options: StoreBenchOptions = {}): Promise<StoreBenchResult> {
  const durationMs = options.durationMs ?? 5_000;
  const concurrency = options.concurrency ?? 8;
  const engine = options.engine ?? 'level';
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-bench-store-'));
  const { part, close } = await openEngine(engine, dir);
  try {
    // Warm up connections, the JIT and the LevelDB files.
    await measure(part, 'put', 4, 300, new KeySpace('warm'));
    const results: Measurement[] = [];
    const written: KeySpace[] = [];
    for (const c of [1, concurrency]) {
      const keys = new KeySpace(`c${c}`);
      results.push(await measure(part, 'put', c, durationMs, keys));
      written.push(keys);
    }
    // Gets read back the keys the puts wrote, cycling through them.
    for (const [i, c] of [1, concurrency].entries()) {
      results.push(await measure(part, 'get', c, durationMs, written[i]!.reader()));
    }
    return {
      engine: ENGINE_NAMES[engine],
      durationMs,
      valueBytes: Buffer.byteLength(JSON.stringify(VALUE)),
      results,
    };
  } finally {
    await close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Keys `prefix/00000000`, `prefix/00000001`, ...; with `cycle`, wraps around after that many. */
class KeySpace {
  private next = 0;
  constructor(
    private readonly prefix: string,
    private readonly cycle = 0,
  ) {}
  take(): string {
    const i = this.cycle > 0 ? this.next++ % this.cycle : this.next++;
    return `${this.prefix}/${String(i).padStart(8, '0')}`;
  }
  /** A key space cycling over the keys taken from this one so far. */
  reader(): KeySpace {
    return new KeySpace(this.prefix, Math.max(1, this.next));
  }
}

async function measure(part: Partition, op: 'put' | 'get', concurrency: number, durationMs: number, keys: KeySpace): Promise<Measurement> {
  const latencies: number[] = [];
  const start = performance.now();
  const deadline = start + durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const key = keys.take();
      const t0 = performance.now();
      if (op === 'put') await part.put(key, VALUE);
      else if ((await part.get(key)) === undefined) throw new Error(`bench: ${key} was not written`);
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return {
    op,
    concurrency,
    ops: latencies.length,
    seconds: round(seconds, 2),
    opsPerSec: round(latencies.length / seconds, 0),
    p50Ms: round(pct(0.5), 2),
    p99Ms: round(pct(0.99), 2),
  };
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function formatTable(r: StoreBenchResult): string {
  const head = ['op', 'concurrency', 'ops', 'seconds', 'ops/s', 'p50 ms', 'p99 ms'];
  const rows = r.results.map((m) => [m.op, m.concurrency, m.ops, m.seconds, m.opsPerSec, m.p50Ms, m.p99Ms].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `store bench: ${r.engine}, ${r.valueBytes}-byte JSON values, ~${r.durationMs / 1000} s per row`,
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(entry).href) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const durationMs = (Number.isFinite(seconds) && seconds > 0 ? seconds : 5) * 1000;
  for (const engine of ['level', 'level-nosync', 'dynalite'] as const) console.log(formatTable(await run({ durationMs, engine })) + '\n');
}
