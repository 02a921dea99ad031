/**
 * The audit log's cost (issue 16): HTTP PKI `issue` throughput with audit off and on, side by
 * side in one run. Two local services (bench/_local-server.ts, the embedded store, each its own
 * process: one Node thread, as one Lambda is) run at once, one with AUDIT_DEVICES=none, one with
 * the local default (AUDIT_DEVICES unset: the file device DATA_DIR/audit.log, a request and a
 * response record per call, every string HMAC'd). The same keep-alive node:http client
 * (bench/_http.ts) measures them in interleaved rounds: EC P-256 `issue` on a `no_store` role
 * and on a stored one, 4 clients. Medians are reported; ratios are medians of per-round ratios.
 * Besides req/s: each server's CPU time per request (all threads, and the main thread) and its
 * write(2) calls per request (/proc/<pid>/io: the answer's, and the audit's grouped appends).
 *
 *   npx tsx bench/audit.ts                     (BENCH_ROUNDS=5, BENCH_SECONDS=2 per measurement)
 *   BENCH_AUDIT_DEVICES=file:/dev/shm/audit.log npx tsx bench/audit.ts
 *       audits to the devices named instead of the local default (here a file on tmpfs;
 *       BENCH_AUDIT_DEVICES=stdout: the deployed default, the bench reading the server's stdout)
 *   BENCH_IN_PROCESS=1 npx tsx bench/audit.ts
 *       only the audit log's own CPU, without HTTP: issue-shaped request and response records
 *       (a root token, an EC certificate, CA, chain and key) through an Auditor and a file
 *       device in the temporary directory, 4 in flight, 6 rounds of 4,000 pairs
 *   BENCH_PROFILE=/tmp/prof npx tsx bench/audit.ts
 *       then also profiles (node --cpu-prof) an audited server (BENCH_PROFILE_MODE=off: one
 *       without audit) under no_store issue alone for 10 s and prints the top self times and the
 *       audit functions' share.
 *
 * Target: audit on within 15% of audit off (ratio >= 0.85).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Auditor, type AuditRequest, type AuditResponse } from '../lib/audit/auditor';
import { fileDevice } from '../lib/audit/devices';
import type { AuditHasher } from '../lib/audit/hasher';
import { caller, median } from './_http';
import { rateFor } from './_rate';
import { startLocalServer, stopChild } from './_servers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CLIENTS = 4;
const TARGET_RATIO = 0.85;

type Mode = 'off' | 'on';

interface Server {
  mode: Mode;
  url: string;
  token: string;
  child: ChildProcess;
}

async function startServer(mode: Mode, nodeArgs: string[] = []): Promise<Server> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (mode === 'off') env.AUDIT_DEVICES = 'none';
  else if (process.env.BENCH_AUDIT_DEVICES) env.AUDIT_DEVICES = process.env.BENCH_AUDIT_DEVICES;
  else delete env.AUDIT_DEVICES;
  delete env.AUDIT_LOG_RAW;
  const { info, child } = await startLocalServer('level', { name: `audit-${mode} server`, env, nodeArgs });
  return { mode, ...info, child };
}

function stopServer(s: Server): Promise<void> {
  return stopChild(s.child);
}

/** CPU time so far (user + system) in ms, from /proc (clock ticks of 10 ms): the process's, or one thread's. */
function cpuMs(pid: number, tid?: number): number {
  const fields = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** write(2) calls so far (/proc/<pid>/io syscw): the response's, and the audit device's. */
function writeCalls(pid: number): number {
  return Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? NaN);
}

interface Sample {
  /** Requests per second, wall clock. */
  rate: number;
  /** write(2) calls per request: one for the answer, and the audit device's share of its grouped appends. */
  writes: number;
  /** Server CPU per request (µs), all threads: what a saturated server would be bound by. */
  cpuUs: number;
  /** The main (JavaScript) thread's share of it (µs); the rest is GC helpers, the thread pool, the compiler. */
  mainUs: number;
}

async function measure(s: Server, seconds: number, one: () => Promise<unknown>): Promise<Sample> {
  const pid = s.child.pid!;
  const before = cpuMs(pid);
  const mainBefore = cpuMs(pid, pid);
  const writesBefore = writeCalls(pid);
  let n = 0;
  const rate = await rateFor(seconds, CLIENTS, async () => {
    await one();
    n++;
  });
  return {
    rate,
    writes: (writeCalls(pid) - writesBefore) / n,
    cpuUs: ((cpuMs(pid) - before) * 1000) / n,
    mainUs: ((cpuMs(pid, pid) - mainBefore) * 1000) / n,
  };
}

interface Load {
  noStore: () => Promise<unknown>;
  stored: () => Promise<unknown>;
}
const LOADS = ['noStore', 'stored'] as const;

async function prepare(s: Server): Promise<Load> {
  const auth = { 'x-vault-token': s.token };
  const post = (path: string, body: unknown) => caller(`${s.url}/v1/${path}`, 'POST', auth, body);
  await post('pki/root/generate/internal', { common_name: 'Bench Root', key_type: 'ec', ttl: '8760h' })();
  const role = { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', key_bits: 256, ttl: '1h' };
  await post('pki/roles/nostore', { ...role, no_store: true })();
  await post('pki/roles/stored', role)();
  const load = {
    noStore: post('pki/issue/nostore', { common_name: 'www.example.com' }),
    stored: post('pki/issue/stored', { common_name: 'www.example.com' }),
  };
  // Warm-up: JIT, the HMAC key, the role cache.
  await rateFor(0.5, CLIENTS, load.noStore);
  await rateFor(0.5, CLIENTS, load.stored);
  return load;
}

interface Figures {
  off: number;
  on: number;
  /** Median of per-round on/off ratios. */
  ratio: number;
  perRound: number[];
}

export interface AuditBenchResult {
  rounds: number;
  seconds: number;
  clients: number;
  /** Median req/s per load and mode (wall clock: moves with whatever else the machine runs). */
  rates: Record<(typeof LOADS)[number], Figures>;
  /** Median server CPU µs per request, and the throughput it bounds (1e6 / µs), on/off. */
  cpu: Record<
    (typeof LOADS)[number],
    Figures & { offCapacity: number; onCapacity: number; capacityRatio: number; offMainUs: number; onMainUs: number }
  >;
  /** Median write(2) calls per request, off and on. */
  writes: Record<(typeof LOADS)[number], { off: number; on: number }>;
  /** The audit devices of the audited server. */
  devices: string;
  withinTarget: boolean;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function figures(off: number[], on: number[]): Figures {
  const perRound = off.map((o, i) => on[i]! / o);
  return { off: Math.round(median(off)), on: Math.round(median(on)), ratio: r3(median(perRound)), perRound: perRound.map(r3) };
}

export async function run(): Promise<AuditBenchResult> {
  const servers = await Promise.all([startServer('off'), startServer('on')]);
  try {
    const loads = await Promise.all(servers.map(prepare));
    const samples = Object.fromEntries(LOADS.map((l) => [l, { off: [] as Sample[], on: [] as Sample[] }])) as Record<
      (typeof LOADS)[number],
      Record<Mode, Sample[]>
    >;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which server goes first, so neither always follows the other's writes.
      const order = round % 2 ? [1, 0] : [0, 1];
      for (const load of LOADS) {
        for (const i of order) samples[load][servers[i]!.mode].push(await measure(servers[i]!, SECONDS, loads[i]![load]));
      }
    }
    const rates = {} as AuditBenchResult['rates'];
    const cpu = {} as AuditBenchResult['cpu'];
    const writes = {} as AuditBenchResult['writes'];
    for (const load of LOADS) {
      const { off, on } = samples[load];
      rates[load] = figures(
        off.map((x) => x.rate),
        on.map((x) => x.rate),
      );
      const c = figures(
        off.map((x) => x.cpuUs),
        on.map((x) => x.cpuUs),
      );
      const main = figures(
        off.map((x) => x.mainUs),
        on.map((x) => x.mainUs),
      );
      writes[load] = { off: r3(median(off.map((x) => x.writes))), on: r3(median(on.map((x) => x.writes))) };
      cpu[load] = {
        ...c,
        offCapacity: Math.round(1e6 / c.off),
        onCapacity: Math.round(1e6 / c.on),
        capacityRatio: r3(1 / c.ratio),
        offMainUs: main.off,
        onMainUs: main.on,
      };
    }
    return {
      rounds: ROUNDS,
      seconds: SECONDS,
      clients: CLIENTS,
      rates,
      cpu,
      writes,
      devices: process.env.BENCH_AUDIT_DEVICES || 'the local default, file:DATA_DIR/audit.log',
      withinTarget: LOADS.every((l) => rates[l].ratio >= TARGET_RATIO),
    };
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}

/** Profiles an audited server under no_store issue for 10 s; prints the top self times and the audit share. */
async function profile(dir: string, mode: Mode): Promise<void> {
  const s = await startServer(mode, ['--cpu-prof', '--cpu-prof-dir', dir]);
  const load = await prepare(s);
  const rate = await rateFor(10, CLIENTS, load.noStore);
  console.log(`\naudit ${mode}: ${Math.round(rate)} req/s while profiled`);
  await stopServer(s);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return console.log('no profile written');
  interface Node {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: Node[]; samples: number[] };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  for (const id of prof.samples) {
    const f = byId.get(id)!.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(lib|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + 1);
  }
  const total = prof.samples.length;
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log(`\nprofile (${file}, ${total} samples), top self time:`);
  for (const [k, v] of top) console.log(`  ${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  const audit = [...self].filter(([k]) => k.includes('lib/audit/')).reduce((a, [, v]) => a + v, 0);
  console.log(`  lib/audit/* self time: ${((100 * audit) / total).toFixed(1)}%`);
}

/** CPU µs per request/response pair of issue-shaped records, through an Auditor and a file device (median of 5 rounds after one warm-up). */
export async function inProcess(): Promise<number[]> {
  const key = randomBytes(32);
  const hasher = { ensureKey: () => Promise.resolve(key) } as unknown as AuditHasher;
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-audit-'));
  try {
    const auditor = new Auditor([fileDevice(join(dir, 'audit.log'))], hasher);
    const pem = (lines: number) =>
      `-----BEGIN CERTIFICATE-----\n${Array.from({ length: lines }, () => randomBytes(48).toString('base64')).join('\n')}\n-----END CERTIFICATE-----\n`;
    const ca = pem(9);
    const token = `lk.${randomBytes(24).toString('base64url')}`;
    const principal = { accessor: randomBytes(12).toString('base64url'), policies: ['root'], displayName: 'root', snapshot: {} };
    const pool = Array.from({ length: 64 }, (): [AuditRequest, AuditResponse] => [
      {
        id: '',
        operation: 'update',
        mountType: 'pki',
        mountPoint: 'pki/',
        path: 'pki/issue/nostore',
        data: { common_name: 'www.example.com' },
        remoteAddress: '127.0.0.1',
        clientToken: token,
        principal,
      },
      {
        status: 200,
        data: {
          certificate: pem(12),
          issuing_ca: ca,
          serial_number: randomBytes(20).toString('hex'),
          expiration: 1795460509,
          ca_chain: [ca],
          private_key: pem(4),
          private_key_type: 'ec',
        },
      },
    ]);
    const perPair: number[] = [];
    const N = 4000;
    for (let round = 0; round < 6; round++) {
      const pairs = Array.from({ length: N }, (_, i) => [{ ...pool[i % 64]![0], id: `${round}-${i}` }, pool[i % 64]![1]] as const);
      let next = 0;
      const before = process.cpuUsage();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < N) {
            const [req, res] = pairs[next++]!;
            await auditor.request(req);
            await auditor.response(req, res, undefined);
          }
        }),
      );
      const used = process.cpuUsage(before);
      if (round) perPair.push(Math.round(((used.user + used.system) / N) * 10) / 10);
    }
    return perPair;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href && process.env.BENCH_IN_PROCESS) {
  const perPair = await inProcess();
  console.log(
    `audit log alone, in process: CPU µs per issue-shaped request/response pair: median ${median(perPair)} (rounds ${perPair.join(' ')})`,
  );
} else if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const r = await run();
  console.log(
    `audit off vs on (${r.devices}), HTTP pki/issue EC P-256, ${r.clients} clients, ${r.rounds} interleaved rounds of ${r.seconds} s`,
  );
  for (const load of LOADS) {
    const x = r.rates[load];
    console.log(
      `  ${load.padEnd(8)} off ${String(x.off).padStart(5)} req/s   on ${String(x.on).padStart(5)} req/s   on/off ${x.ratio.toFixed(3)}   rounds ${x.perRound.join(' ')}`,
    );
  }
  console.log('server CPU per request (the throughput one saturated thread would reach):');
  for (const load of LOADS) {
    const x = r.cpu[load];
    console.log(
      `  ${load.padEnd(8)} off ${String(x.off).padStart(5)} µs (${x.offCapacity} req/s)   on ${String(x.on).padStart(5)} µs (${x.onCapacity} req/s)   on/off capacity ${x.capacityRatio.toFixed(3)}   rounds ${x.perRound.map((p) => r3(1 / p)).join(' ')}`,
    );
    console.log(`  ${''.padEnd(8)} of which the main thread: off ${x.offMainUs} µs, on ${x.onMainUs} µs`);
  }
  console.log('write(2) calls per request (the answer, and the audit appends grouped per event-loop turn):');
  for (const load of LOADS) console.log(`  ${load.padEnd(8)} off ${r.writes[load].off}   on ${r.writes[load].on}`);
  console.log(`target on/off >= ${TARGET_RATIO} (req/s): ${r.withinTarget ? 'met' : 'NOT met'}`);
  console.log(JSON.stringify(r));
  if (process.env.BENCH_PROFILE) {
    const dir = mkdtempSync(join(process.env.BENCH_PROFILE, 'audit-'));
    await profile(dir, process.env.BENCH_PROFILE_MODE === 'off' ? 'off' : 'on');
    if (!process.env.BENCH_KEEP) rmSync(dir, { recursive: true, force: true });
  }
}
