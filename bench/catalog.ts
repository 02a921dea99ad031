/**
 * Catalog KV throughput through the local server (real HTTP on loopback, embedded persistent
 * store, values sealed), sequential and with 8 clients; the same through the catalog app alone
 * on its own HTTP server (one app per server, as in its Lambda); next to the embedded store's
 * raw single-item put/get rate measured in the same run (bench/store.ts). Requests go through
 * node:http with keep-alive (fetch adds client-side overhead of its own).
 *   npx tsx bench/catalog.ts            (about 5 s per measurement)
 *   BENCH_SECONDS=2 npx tsx bench/catalog.ts
 */
import { createAdaptorServer } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLocal } from '../lib/local/service';
import { createCatalogApp } from '../lib/catalog/app';
import { catalogSettings } from '../lib/catalog/settings';
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
  return {
    what,
    concurrency,
    ops: latencies.length,
    opsPerSec: Math.round(latencies.length / seconds),
    p50Ms: round(pct(0.5)),
    p99Ms: round(pct(0.99)),
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One request; resolves with the body, rejects unless the status is 200 and the body `expect`. */
function send(url: string, method: string, body: string | undefined, expect: string): Promise<void> {
  return new Promise((ok, fail) => {
    const req = request(url, { method, agent, headers: body ? { 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        res.statusCode === 200 && Buffer.concat(parts).toString() === expect ? ok() : fail(new Error(`catalog answered ${res.statusCode}`)),
      );
    });
    req.on('error', fail);
    req.end(body);
  });
}

async function kvRows(base: string, label: string, durationMs: number): Promise<Row[]> {
  let written = 0;
  const key = (prefix: string, i: number) => `${base}/v1/kv/bench/${label}/${prefix}/${String(i).padStart(8, '0')}`;
  const put = (prefix: string) => async (i: number) => {
    await send(key(prefix, i), 'PUT', VALUE, 'true');
    written = Math.max(written, i + 1);
  };
  const get = (prefix: string, n: number) => (i: number) => send(`${key(prefix, i % n)}?raw`, 'GET', undefined, VALUE);
  await measure('warm-up', 4, 500, put('warm'));
  const rows: Row[] = [];
  for (const c of [1, 8]) {
    written = 0;
    rows.push(await measure(`${label}: kv PUT`, c, durationMs, put(`c${c}`)));
    rows.push(await measure(`${label}: kv GET ?raw`, c, durationMs, get(`c${c}`, Math.max(1, written))));
  }
  return rows;
}

async function catalogRows(durationMs: number): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-catalog-'));
  const svc = await startLocal({ dataDir, port: 0 });
  // The catalog app alone with the local server's (open) settings, so both rows serve the same requests.
  const alone = createAdaptorServer({ fetch: createCatalogApp(svc.deps, catalogSettings({ overlay: 'local' })).fetch });
  await new Promise<void>((ok) => alone.listen(0, '127.0.0.1', () => ok()));
  try {
    const aloneUrl = `http://127.0.0.1:${(alone.address() as AddressInfo).port}`;
    return [...(await kvRows(svc.url, 'local server', durationMs)), ...(await kvRows(aloneUrl, 'catalog app alone', durationMs))];
  } finally {
    await new Promise<void>((r) => alone.close(() => r()));
    agent.destroy();
    await svc.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function run(durationMs = 5000): Promise<Row[]> {
  setLogLevel('silent');
  const store = await storeRun({ durationMs });
  const storeRows: Row[] = store.results.map((m) => ({
    what: `store ${m.op} (raw item)`,
    concurrency: m.concurrency,
    ops: m.ops,
    opsPerSec: m.opsPerSec,
    p50Ms: m.p50Ms,
    p99Ms: m.p99Ms,
  }));
  return [...(await catalogRows(durationMs)), ...storeRows];
}

export function formatRows(rows: Row[], valueBytes: number): string {
  const head = ['what', 'clients', 'ops', 'ops/s', 'p50 ms', 'p99 ms'];
  const cells = rows.map((r) => [r.what, r.concurrency, r.ops, r.opsPerSec, r.p50Ms, r.p99Ms].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
  return [
    `catalog bench: ${valueBytes}-byte KV values through the local server (HTTP, sealed at rest) vs the raw store`,
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...cells.map(line),
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rows = await run((Number.isFinite(seconds) && seconds > 0 ? seconds : 5) * 1000);
  console.log(formatRows(rows, Buffer.byteLength(VALUE)));
}
