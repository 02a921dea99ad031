/**
 * The HTTP request path, this tree against a previous revision, side by side (issue 14: the
 * front door's rewrite must not make the HTTP issue path slower). The base revision is checked
 * out in a git worktree under the temp directory (node_modules linked from this tree), and both
 * trees' `npm start` entry (functions/local.ts) run as child processes, each on its own port and
 * DATA_DIR, with LOCAL_STORE=dynalite (a tree that predates the variable uses dynalite anyway),
 * so only the code in front of the store differs. Each gets an EC root on its pki mount and a
 * role (EC P-256, no_store) through HTTP, then every operation is measured in interleaved
 * rounds (old and new back to back, the order alternating), 4 keep-alive clients
 * (bench/_http.ts) from this process; the table gives each side's median.
 *   npx tsx bench/front-door.ts [--base <git-rev>]        (default base c3d7eca)
 *   BENCH_ROUNDS=7 BENCH_SECONDS=3                         (the defaults)
 *   AUDIT_DEVICES=none npx tsx bench/front-door.ts         (both services get the environment:
 *     this one leaves out the audit log's local file device, where a tree has one)
 *   npx tsx bench/front-door.ts --profile [--op ca/pem]    (the base, then this tree, each alone
 *     under one operation's load (default the issue) with node --cpu-prof, BENCH_SECONDS=15;
 *     prints each one's top self-time functions and files)
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { caller, median, send } from './_http';
import { rate } from './_rate';

const ROOT = join(import.meta.dirname, '..');
const ROLE = 'fd';
const CLIENTS = 4;

interface Service {
  url: string;
  token: string;
  stop: () => Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];

async function cleanUp(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch (e) {
      console.error('cleanup:', e instanceof Error ? e.message : e);
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A detached worktree of `rev` under the temp directory, with this tree's node_modules. */
function worktree(rev: string): string {
  const parent = mkdtempSync(join(tmpdir(), 'latchkey-bench-base-'));
  const dir = join(parent, 'tree');
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, rev], { stdio: 'ignore' });
  cleanups.push(() => {
    execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
    rmSync(parent, { recursive: true, force: true });
  });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** `node --import tsx functions/local.ts` in `tree`; resolves once sys/health answers 200. */
async function startService(tree: string, nodeFlags: string[] = []): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-fd-data-'));
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'silent',
    LOCAL_STORE: 'dynalite',
    NODE_NO_WARNINGS: '1',
  };
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', 'functions/local.ts'], {
    cwd: tree,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  let stopping = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      if (!stopping) console.error(`the service in ${tree} exited (${code ?? signal}) during the run: ${stderr}`);
      resolve();
    }),
  );
  const stop = async () => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  cleanups.push(stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the service in ${tree} exited (${child.exitCode}): ${stderr}`);
    const up = await send(`${url}/v1/sys/health`, 'GET').then(
      (r) => r.status === 200,
      () => false,
    );
    if (up && existsSync(join(dataDir, 'root-token'))) break;
    if (i > 600) throw new Error(`the service in ${tree} did not start in 60 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, token: readFileSync(join(dataDir, 'root-token'), 'utf8').trim(), stop };
}

interface Operation {
  name: string;
  call: (s: Service) => () => Promise<unknown>;
}

const OPERATIONS: Operation[] = [
  {
    name: `POST pki/issue/${ROLE} (EC P-256, no_store)`,
    call: (s) => caller(`${s.url}/v1/pki/issue/${ROLE}`, 'POST', { 'x-svc-token': s.token }, { common_name: 'www.example.com' }),
  },
  { name: 'GET sys/mounts (authenticated)', call: (s) => caller(`${s.url}/v1/sys/mounts`, 'GET', { 'x-svc-token': s.token }) },
  {
    name: `GET pki/roles/${ROLE} (authenticated)`,
    call: (s) => caller(`${s.url}/v1/pki/roles/${ROLE}`, 'GET', { 'x-svc-token': s.token }),
  },
  { name: 'GET kv/bench/front-door/config (catalog)', call: (s) => caller(`${s.url}/v1/kv/bench/front-door/config`, 'GET') },
  { name: 'GET pki/ca/pem (unauthenticated)', call: (s) => caller(`${s.url}/v1/pki/ca/pem`, 'GET') },
  { name: 'HEAD pki/ca/pem (unauthenticated)', call: (s) => caller(`${s.url}/v1/pki/ca/pem`, 'HEAD') },
];

/** The root, the role and a catalog key, all through HTTP. */
async function configure(s: Service): Promise<void> {
  const auth = { 'x-svc-token': s.token };
  await caller(`${s.url}/v1/pki/root/generate/internal`, 'POST', auth, {
    common_name: 'Front Door Bench Root',
    key_type: 'ec',
    key_bits: 256,
    ttl: '8760h',
  })();
  await caller(`${s.url}/v1/pki/roles/${ROLE}`, 'POST', auth, {
    allowed_domains: 'example.com',
    allow_subdomains: true,
    key_type: 'ec',
    key_bits: 256,
    ttl: '1h',
    no_store: true,
  })();
  await caller(`${s.url}/v1/kv/bench/front-door/config`, 'PUT', {}, { url: 'postgres://db.internal:5432/app', pool: 20 })();
}

interface Figures {
  name: string;
  old: number[];
  next: number[];
}

/** Interleaved rounds; n per round is sized from a warm-up so a round lasts about `seconds`. */
async function compare(old: Service, next: Service, rounds: number, seconds: number): Promise<Figures[]> {
  const out: Figures[] = [];
  for (const op of OPERATIONS) {
    const [a, b] = [op.call(old), op.call(next)];
    const warm = ((await rate(300, CLIENTS, a)) + (await rate(300, CLIENTS, b))) / 2;
    const n = Math.max(200, Math.round(warm * seconds));
    // Both JITs settled on this operation before the first measured round.
    await rate(n, CLIENTS, a);
    await rate(n, CLIENTS, b);
    const f: Figures = { name: op.name, old: [], next: [] };
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        f.old.push(await rate(n, CLIENTS, a));
        f.next.push(await rate(n, CLIENTS, b));
      } else {
        f.next.push(await rate(n, CLIENTS, b));
        f.old.push(await rate(n, CLIENTS, a));
      }
    }
    console.log(`${op.name}: n=${n}; old ${f.old.map((x) => x.toFixed(0)).join(' ')}; new ${f.next.map((x) => x.toFixed(0)).join(' ')}`);
    out.push(f);
  }
  return out;
}

function printTable(base: string, figures: Figures[]): void {
  console.log(
    `\n| operation (${CLIENTS} keep-alive clients) | old ${base} req/s | new req/s | new / old | per-round ratio, median (min–max) |`,
  );
  console.log('|---|---|---|---|---|');
  for (const f of figures) {
    const ratios = f.next.map((x, i) => x / f.old[i]!);
    const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
    const spread = `${pct(median(ratios))} (${pct(Math.min(...ratios))}–${pct(Math.max(...ratios))})`;
    console.log(
      `| ${f.name} | ${median(f.old).toFixed(0)} | ${median(f.next).toFixed(0)} | ${pct(median(f.next) / median(f.old))} | ${spread} |`,
    );
  }
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Self time per function and per file from a .cpuprofile (sample deltas attributed to the leaf). */
function summariseProfile(file: string, tree: string, top = 25): void {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const byFn = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    const cf = byId.get(id)!.callFrame;
    const where = !cf.url
      ? '(native)'
      : cf.url.startsWith('file://')
        ? relative(tree, cf.url.slice(7)).replace(/^(\.\.\/)+work\/main\//, '')
        : cf.url;
    const fn = `${where}:${cf.functionName || '(anonymous)'}${cf.url ? `:${cf.lineNumber + 1}` : ''}`;
    byFn.set(fn, (byFn.get(fn) ?? 0) + dt);
    byFile.set(where, (byFile.get(where) ?? 0) + dt);
    total += dt;
  });
  const show = (title: string, m: Map<string, number>) => {
    console.log(`\n${title} (of ${(total / 1e6).toFixed(1)} s sampled)`);
    for (const [k, v] of [...m].sort((x, y) => y[1] - x[1]).slice(0, top))
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
  };
  show('top self time by function', byFn);
  show('top self time by file', byFile);
}

/** One service under one operation's load with --cpu-prof, then the profile's hot spots. */
async function profileOne(label: string, tree: string, op: Operation, seconds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'latchkey-bench-fd-prof-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const s = await startService(tree, ['--cpu-prof', '--cpu-prof-dir', dir]);
  await configure(s);
  const one = op.call(s);
  const warm = await rate(300, CLIENTS, one);
  const r = await rate(Math.round(warm * seconds), CLIENTS, one);
  console.log(`\n=== ${label}: ${op.name}, ${r.toFixed(0)} req/s under the profiler for ~${seconds} s`);
  await s.stop();
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written');
  summariseProfile(join(dir, file), tree);
}

/** --profile [--op <part of an operation's name>]: the base, then this tree, one after the other. */
async function profile(base: string, args: string[]): Promise<void> {
  const at = args.indexOf('--op');
  const wanted = at >= 0 ? (args[at + 1] ?? '') : 'issue';
  const op = OPERATIONS.find((o) => o.name.includes(wanted));
  if (!op) throw new Error(`no operation matches --op ${wanted}`);
  const seconds = Number(process.env.BENCH_SECONDS ?? 15);
  await profileOne(`old ${base}`, worktree(base), op, seconds);
  await profileOne('new (this tree)', ROOT, op, seconds);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--base');
  const base = at >= 0 ? args[at + 1] : 'c3d7eca';
  if (!base) throw new Error('--base needs a git revision');
  const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  if (args.includes('--profile')) return profile(base, args);
  const head = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
  const dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'lib', 'functions']).toString().trim() !== '';
  console.log(
    `old: ${base}; new: this tree (HEAD ${head}${dirty ? ', with uncommitted changes under lib/ or functions/' : ''}); ${rounds} rounds of ~${seconds} s per server`,
  );
  // A tree with the audit log (issue 16) writes DATA_DIR/audit.log locally unless AUDIT_DEVICES says otherwise.
  console.log(`AUDIT_DEVICES=${process.env.AUDIT_DEVICES ?? '(unset: the local default)'}`);
  const old = await startService(worktree(base));
  const next = await startService(ROOT);
  await configure(old);
  await configure(next);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  console.log(`load average at start: ${load()}`);
  const figures = await compare(old, next, rounds, seconds);
  console.log(`load average at end: ${load()}`);
  printTable(base, figures);
}

const onSignal = () => void cleanUp().then(() => process.exit(130));
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
try {
  await main();
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
