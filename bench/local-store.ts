/**
 * The local service on its two stores, side by side in one run (issue 18): the dynalite store
 * (LOCAL_STORE=dynalite: DynamoDB protocol over HTTP to dynalite on LevelDB, in process) and the
 * embedded store (the default: LevelDB in process, group-committed fsynced batches), and the
 * embedded store without fsync (LOCAL_STORE_SYNC=false), to show what the sync costs.
 *
 * The servers run at once, each in its own process (one Node thread, bench/_local-server.ts),
 * and are measured in interleaved rounds by the same keep-alive node:http client (bench/_http.ts);
 * medians are reported, and ratios are medians of per-round ratios. Per round and server:
 *  - PKI `issue` EC P-256, `no_store` and stored, 4 clients (as bench/pki.ts);
 *  - SSH `sign` with an Ed25519 CA (one lease write per certificate), 8 clients;
 *  - catalog KV `PUT` of new keys, 8 clients;
 * and `cfssl serve` `newcert` EC P-256 (GOMAXPROCS=1, Debian golang-cfssl), 4 clients, next to
 * the embedded store's `no_store` issue, when cfssl is installed; every answer counted is checked
 * (ours: a certificate in it; cfssl's: success, a certificate and an EC key). With cfssl, also
 * what a no_store issue costs at the least (bench/_issue-floor.ts): an HTTP-only server and an
 * HTTP server running only the issue engine, each in its own process on the same listener,
 * GET pki/ca/pem (the front door without a token), and the crypto and the engine in process.
 * Beside each rate, the server's CPU time per request (/proc, all its threads): what it would
 * do with a core to itself, which the neighbours on a shared machine move far less than its rate.
 *
 *   npx tsx bench/local-store.ts          (BENCH_ROUNDS=5, BENCH_SECONDS=2 per measurement)
 *   BENCH_PROFILE=/tmp/prof npx tsx bench/local-store.ts
 *       then also profiles (node --cpu-prof) a third server, embedded store, under HTTP issue
 *       no_store alone for 10 s, and prints the functions with the most self time
 *       (BENCH_PROFILE_LOAD=issueStored|sshSign|kvPut profiles that load instead;
 *       BENCH_ROUNDS=0 profiles only).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { caller, median, send } from './_http';
import { rateAndCpu, rateFor } from './_rate';
import { inProcessFloors, startFloorServer } from './_issue-floor';
import { startCfssl, startLocalServer, stopChild, withCertificate } from './_servers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
/** `level-nosync` is the embedded store with LOCAL_STORE_SYNC=false: what the fsync costs. */
const STORES = ['dynalite', 'level', 'level-nosync'] as const;
type StoreKind = (typeof STORES)[number];

interface Server {
  url: string;
  token: string;
  child: ChildProcess;
  /** Lines the server printed after its first. */
  lines: string[];
}

async function startServer(store: StoreKind, nodeArgs: string[] = []): Promise<Server> {
  const { info, child, lines } = await startLocalServer(store === 'dynalite' ? 'dynalite' : 'level', {
    name: `${store} server`,
    env: { ...process.env, LOCAL_STORE_SYNC: store === 'level-nosync' ? 'false' : 'true' },
    nodeArgs,
  });
  return { ...info, child, lines };
}

function stopServer(s: Server): Promise<void> {
  return stopChild(s.child);
}

interface Load {
  issueNoStore: () => Promise<unknown>;
  issueStored: () => Promise<unknown>;
  sshSign: () => Promise<unknown>;
  kvPut: () => Promise<unknown>;
}

async function prepare(s: Server, userKey: string, label: string): Promise<Load> {
  const auth = { 'x-svc-token': s.token };
  const post = (path: string, body: unknown) => caller(`${s.url}/v1/${path}`, 'POST', auth, body);
  await post('pki/root/generate/internal', { common_name: 'Bench Root', key_type: 'ec', ttl: '8760h' })();
  const role = { allowed_domains: 'example.com', allow_subdomains: true, key_type: 'ec', ttl: '1h' };
  await post('pki/roles/nostore', { ...role, no_store: true })();
  await post('pki/roles/stored', role)();
  await post('ssh/config/ca', { key_type: 'ed25519' })();
  await post('ssh/roles/bench', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', ttl: '30m' })();
  let next = 0;
  const issue = (role: string) => {
    const call = post(`pki/issue/${role}`, ISSUE);
    return async () => withCertificate(await call());
  };
  return {
    issueNoStore: issue('nostore'),
    issueStored: issue('stored'),
    sshSign: post('ssh/sign/bench', { public_key: userKey, valid_principals: 'alice' }),
    kvPut: async () => {
      const r = await send(
        `${s.url}/v1/kv/bench/${label}/${String(next++).padStart(8, '0')}`,
        'PUT',
        {},
        '{"url":"postgres://db.internal:5432/app","pool":20}',
      );
      if (r.status !== 200) throw new Error(`kv PUT answered ${r.status}`);
    },
  };
}

const ISSUE = { common_name: 'www.example.com' };
type Metric = keyof Load;
const METRICS: { metric: Metric; clients: number; label: string }[] = [
  { metric: 'issueNoStore', clients: 4, label: 'HTTP PKI issue EC P-256 no_store, 4 clients' },
  { metric: 'issueStored', clients: 4, label: 'HTTP PKI issue EC P-256 stored, 4 clients' },
  { metric: 'sshSign', clients: 8, label: 'HTTP SSH sign Ed25519 CA (lease written), 8 clients' },
  { metric: 'kvPut', clients: 8, label: 'HTTP catalog KV PUT (new keys), 8 clients' },
];

export async function run(): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-local-store-'));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'user')]);
  const userKey = readFileSync(join(dir, 'user.pub'), 'utf8');
  const figures = ROUNDS > 0 ? await compare(dir, userKey) : {};
  if (process.env.BENCH_PROFILE) await profile(process.env.BENCH_PROFILE, userKey);
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

/** Both stores (and cfssl) in interleaved rounds; prints and returns the figures. */
async function compare(dir: string, userKey: string): Promise<Record<string, number>> {
  const servers = {
    dynalite: await startServer('dynalite'),
    level: await startServer('level'),
    'level-nosync': await startServer('level-nosync'),
  };
  const cfssl = await startCfssl(dir);
  const floors: Awaited<ReturnType<typeof startFloorServer>>[] = [];
  const figures: Record<string, number> = {};
  /** Rates and server CPU µs per request (and the cores cfssl kept busy), per round. */
  const got: Record<string, number[]> = {};
  const cpu: Record<string, number[]> = {};
  try {
    const loads = {
      dynalite: await prepare(servers.dynalite, userKey, 'dynalite'),
      level: await prepare(servers.level, userKey, 'level'),
      'level-nosync': await prepare(servers['level-nosync'], userKey, 'level-nosync'),
    };
    // Beside the stores: cfssl, and what a no_store issue costs at the least (bench/_issue-floor.ts):
    // the same listener answering a real issue answer and nothing else, the same listener running
    // the issue engine and nothing else, and the front door alone (GET pki/ca/pem: no token, cached).
    const others: { key: string; call: () => Promise<unknown>; pid: number | undefined }[] = [];
    if (cfssl) {
      const sample = await caller(`${servers.level.url}/v1/pki/issue/nostore`, 'POST', { 'x-svc-token': servers.level.token }, ISSUE)();
      const canned = await startFloorServer('canned', sample.body.toString());
      const engine = await startFloorServer('engine');
      floors.push(canned, engine);
      others.push({ key: 'cfssl', call: cfssl.newcert, pid: cfssl.pid }, { key: 'floor', call: canned.call, pid: canned.pid });
      others.push({ key: 'floorEngine', call: engine.call, pid: engine.pid });
      others.push({ key: 'caPem', call: caller(`${servers.level.url}/v1/pki/ca/pem`, 'GET'), pid: servers.level.child.pid });
    }
    // Warm every server's JIT before measuring.
    for (const store of STORES) for (const { metric, clients } of METRICS) await rateFor(1, clients, loads[store][metric]);
    for (const o of others) await rateFor(1, 4, o.call);

    const add = (k: string, v: { rate: number; cpuUs: number | undefined; cores: number | undefined }) => {
      (got[k] ??= []).push(v.rate);
      if (v.cpuUs !== undefined) (cpu[k] ??= []).push(v.cpuUs);
      if (k === 'cfssl' && v.cores !== undefined) (cpu[`${k}:cores`] ??= []).push(v.cores);
    };
    for (let r = 0; r < ROUNDS; r++) {
      for (const store of STORES) {
        for (const { metric, clients } of METRICS) {
          add(`${store}:${metric}`, await rateAndCpu(SECONDS, clients, loads[store][metric], servers[store].child.pid));
        }
      }
      for (const o of others) add(o.key, await rateAndCpu(SECONDS, 4, o.call, o.pid));
    }
  } finally {
    cfssl?.stop();
    for (const f of floors) await f.stop();
    for (const store of STORES) await stopServer(servers[store]);
  }
  for (const { metric, label } of METRICS) {
    for (const store of STORES) figures[`${label} [${store}] (req/s)`] = median(got[`${store}:${metric}`]!);
  }
  for (const store of STORES) {
    const stored = got[`${store}:issueStored`]!;
    figures[`stored issue / no_store issue [${store}] (%)`] = 100 * median(stored.map((x, i) => x / got[`${store}:issueNoStore`]![i]!));
  }
  for (const store of STORES) figures[`server CPU per SSH sign [${store}] (us)`] = median(cpu[`${store}:sshSign`] ?? [NaN]);
  if (cfssl) Object.assign(figures, await againstCfssl(got, cpu));
  for (const [k, v] of Object.entries(got)) console.log(`rounds ${k}: ${v.map((x) => x.toFixed(0)).join(' ')}`);
  for (const [k, v] of Object.entries(cpu)) {
    const cores = k.endsWith(':cores');
    console.log(`rounds ${k} (${cores ? 'x100' : 'CPU us/req'}): ${v.map((x) => (cores ? 100 * x : x).toFixed(0)).join(' ')}`);
  }
  const stats = servers.level.lines.map((l) => JSON.parse(l) as { batches: number; plans: number }).at(-1);
  if (stats) figures['embedded store: writes per fsynced batch, whole run (x100)'] = (100 * stats.plans) / Math.max(1, stats.batches);
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(72)} ${v.toFixed(0)}`);
  return figures;
}

/**
 * The no_store issue against cfssl: rates, and per request the CPU each server spends (what its
 * rate would be with a core to itself), with what ours cannot cost less than (bench/_issue-floor.ts).
 */
async function againstCfssl(got: Record<string, number[]>, cpu: Record<string, number[]>): Promise<Record<string, number>> {
  const f: Record<string, number> = {};
  const ours = cpu['level:issueNoStore'] ?? [NaN];
  f['cfssl serve newcert EC P-256 (GOMAXPROCS=1), 4 clients (req/s)'] = median(got.cfssl!);
  f['HTTP issue no_store [level] / cfssl, per-round ratio (x100)'] =
    100 * median(got.cfssl!.map((c, i) => got['level:issueNoStore']![i]! / c));
  f['cores cfssl kept busy (x100; GOMAXPROCS=1: at most ~100)'] = 100 * median(cpu['cfssl:cores'] ?? [NaN]);
  f['server CPU per cfssl newcert (us)'] = median(cpu.cfssl ?? [NaN]);
  f['server CPU per HTTP issue no_store [level] (us)'] = median(ours);
  f['cfssl CPU / no_store issue CPU, per round (x100)'] = 100 * median((cpu.cfssl ?? [NaN]).map((c, i) => c / ours[i]!));
  f['HTTP-only server, canned issue answer, 4 clients (req/s)'] = median(got.floor!);
  f['server CPU per HTTP-only answer (us)'] = median(cpu.floor ?? [NaN]);
  f['server CPU per GET pki/ca/pem [level] (us)'] = median(cpu.caPem ?? [NaN]);
  const { cryptoUs, engineUs } = await inProcessFloors();
  f['in process: P-256 key + ECDSA sign CPU (us)'] = cryptoUs;
  f['in process: issue engine (issueLeaf + PEM) CPU (us)'] = engineUs;
  f['HTTP server running the issue engine only, 4 clients (req/s)'] = median(got.floorEngine!);
  f['server CPU per engine-only HTTP issue (us)'] = median(cpu.floorEngine ?? [NaN]);
  // The best ratio to cfssl a no_store issue could reach with no front door, token check, field
  // validation or envelope at all: cfssl's CPU per request over the engine-only server's.
  f['cfssl CPU / engine-only HTTP issue CPU, per round (x100)'] =
    100 * median((cpu.cfssl ?? [NaN]).map((c, i) => c / (cpu.floorEngine ?? [])[i]!));
  return f;
}

/** Profiles the embedded-store server under one load alone (HTTP issue no_store by default); prints the top self times. */
async function profile(profDir: string, userKey: string): Promise<void> {
  const which = METRICS.find((m) => m.metric === (process.env.BENCH_PROFILE_LOAD ?? 'issueNoStore')) ?? METRICS[0]!;
  const s = await startServer('level', ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  const load = await prepare(s, userKey, 'profile');
  await rateFor(2, which.clients, load[which.metric]);
  const r = await rateFor(10, which.clients, load[which.metric]);
  await stopServer(s);
  // One profile per thread (tsx's loader has its own): the main thread's is the largest.
  const file = readdirSync(profDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => ({ f, size: statSync(join(profDir, f)).size }))
    .sort((a, b) => b.size - a.size)[0]!.f;
  console.log(`\nprofile ${join(profDir, file)}: ${which.label}, ${r.toFixed(0)} req/s under the profiler`);
  for (const row of topSelf(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile, 25)) console.log(row);
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The `n` functions with the most self time, as "percent  function  file:line" lines. */
function topSelf(p: CpuProfile, n: number): string[] {
  const byId = new Map(p.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!;
    const where = f.url ? `${f.url.replace(/^file:\/\/.*?\/(node_modules|lib|bench)\//, '$1/')}:${f.lineNumber + 1}` : '';
    const key = `${f.functionName || '(anonymous)'}  ${where}`;
    const dt = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await run();
