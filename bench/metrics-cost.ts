/**
 * What metrics add to a request's CPU, measured in process where the side-by-side bench
 * (bench/side-by-side.ts, METRICS=off against on) is too noisy to resolve a few microseconds:
 *   - recording one answered request (lib/metrics/requests.ts: a counter and a histogram);
 *   - one store call through the timed store (lib/metrics/calls.ts) against the same call on the
 *     store alone, on an embedded store (LevelDB in a temp directory, reads of one small item).
 * Each is timed over N iterations, alternating the two sides in rounds; printed: CPU µs per
 * operation (process.cpuUsage, user + system), median over the rounds.
 *   npx tsx bench/metrics-cost.ts          (BENCH_N=20000 BENCH_ROUNDS=7)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timedStore } from '../lib/metrics/calls';
import { domainMetrics } from '../lib/metrics/catalog';
import { Registry } from '../lib/metrics/registry';
import { recordRequest, requestMetrics } from '../lib/metrics/requests';
import { LevelStore } from '../lib/store/level-store';

const N = Number(process.env.BENCH_N ?? 20000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function cpuPerOp(run: () => Promise<void> | void, n = N): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

async function main(): Promise<void> {
  const r = new Registry();
  const req = requestMetrics(r);
  const m = domainMetrics(r);
  const answered = { function: 'pki', mount: 'pki', path: 'pki/issue/:name', operation: 'update', status: 200, seconds: 0.004 };
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-metrics-cost-'));
  const raw = await LevelStore.open(dir);
  try {
    const plain = raw.partition('bench');
    const timed = timedStore(raw, m).partition('bench');
    await plain.put('item', { v: 'x'.repeat(200) });
    const rows: Record<string, number[]> = { record: [], plainGet: [], timedGet: [] };
    for (let i = 0; i < 2000; i++) {
      recordRequest(answered, req);
      await plain.get('item');
      await timed.get('item');
    }
    for (let round = 0; round < ROUNDS; round++) {
      rows.record!.push(await cpuPerOp(() => recordRequest(answered, req), N * 5));
      rows.plainGet!.push(await cpuPerOp(async () => void (await plain.get('item'))));
      rows.timedGet!.push(await cpuPerOp(async () => void (await timed.get('item'))));
    }
    const rec = median(rows.record!);
    const plainGet = median(rows.plainGet!);
    const timedGet = median(rows.timedGet!);
    console.log(`node ${process.version}; N=${N} per round (recording: ${N * 5}), ${ROUNDS} rounds, medians`);
    console.log('| operation | CPU µs per operation |');
    console.log('|---|---|');
    console.log(`| record one answered request (counter + histogram) | ${rec.toFixed(3)} |`);
    console.log(`| store get, embedded store alone | ${plainGet.toFixed(2)} |`);
    console.log(`| store get through the timed store | ${timedGet.toFixed(2)} |`);
    console.log(`| timing one store call (difference) | ${(timedGet - plainGet).toFixed(2)} |`);
  } finally {
    await raw.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
