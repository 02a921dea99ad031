/**
 * Catalog KV throughput through the local server (real HTTP on loopback, embedded persistent
 * store, values sealed), sequential and with 8 clients, next to the embedded store's raw
 * single-item put/get rate measured in the same run (bench/store.ts).
 *   npx tsx bench/catalog.ts            (about 5 s per measurement)
 *   BENCH_SECONDS=2 npx tsx bench/catalog.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../functions/local';
import { setLogLevel } from '../lib/log';
import { run as storeRun } from './store';

const VALUE = JSON.stringify({ url: 'postgres://db.internal:5432/app', pool: 20, timeout_ms: 1500, feature_flags: ['a', 'b', 'c'] });

interface Row {
  what: string;
  concurrency: number;
  ops: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

async function measure(what: string, concurrency: number, durationMs: number, one: (i: number) => Promise<void>): Promise<Row> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        await one(next++);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { what, concurrency, ops: latencies.length, opsPerSec: Math.round(latencies.length / seconds), p50Ms: round(pct(0.5)), p99Ms: round(pct(0.99)) };
}

const round = (n: number) => Math.round(n * 100) / 100;

async function catalogRows(durationMs: number): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-catalog-'));
  const svc = await startLocal({ dataDir, port: 0 });
  try {
    const expect = async (r: Response, body: string | undefined) => {
      const text = await r.text();
      if (r.status !== 200 || (body !== undefined && text !== body)) throw new Error(`catalog answered ${r.status}`);
    };
    let written = 0;
    const put = (prefix: string) => async (i: number) => {
      await expect(await fetch(`${svc.url}/v1/kv/bench/${prefix}/${String(i).padStart(8, '0')}`, { method: 'PUT', body: VALUE }), 'true');
      written = Math.max(written, i + 1);
    };
    const get = (prefix: string, count: () => number) => async (i: number) =>
      expect(await fetch(`${svc.url}/v1/kv/bench/${prefix}/${String(i % count()).padStart(8, '0')}?raw`), VALUE);
    await measure('warm-up', 4, 500, put('warm'));
    const rows: Row[] = [];
    for (const c of [1, 8]) {
      written = 0;
      rows.push(await measure('catalog kv PUT', c, durationMs, put(`c${c}`)));
      const n = written;
      rows.push(await measure('catalog kv GET ?raw', c, durationMs, get(`c${c}`, () => n)));
    }
    return rows;
  } finally {
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(durationMs = 5000): Promise<Row[]> {
  setLogLevel('silent');
  const store = await storeRun({ durationMs });
  const storeRows: Row[] = store.results.map((m) => ({ what: `store ${m.op} (raw item)`, concurrency: m.concurrency, ops: m.ops, opsPerSec: m.opsPerSec, p50Ms: m.p50Ms, p99Ms: m.p99Ms }));
  return [...(await catalogRows(durationMs)), ...storeRows];
}

export function formatRows(rows: Row[], valueBytes: number): string {
  const head = ['what', 'clients', 'ops', 'ops/s', 'p50 ms', 'p99 ms'];
  const cells = rows.map((r) => [r.what, r.concurrency, r.ops, r.opsPerSec, r.p50Ms, r.p99Ms].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [`catalog bench: ${valueBytes}-byte KV values through the local server (HTTP, sealed at rest) vs the raw store`, line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rows = await run((Number.isFinite(seconds) && seconds > 0 ? seconds : 5) * 1000);
  console.log(formatRows(rows, Buffer.byteLength(VALUE)));
}
