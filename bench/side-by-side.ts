/**
 * Server CPU per request, a revision before a change against this tree, side by side (issue 24:
 * no more than 5% more on a stored PKI issue, an SSH sign and a KV read). The revision is checked
 * out in a git worktree under the temp directory (this tree's node_modules linked in), and both
 * trees' functions/local.ts run the same way, each in its own process: PORT=0, a fresh DATA_DIR,
 * LOCAL_STORE=level with fsync, LOG_LEVEL=silent, the sweeper idle, and AUDIT_DEVICES=
 * file:$DATA_DIR/audit.log (the local default; set AUDIT_DEVICES to give both another, e.g. none).
 * Each gets through HTTP, with its root token: an EC P-256 root and a storing role, an Ed25519 SSH
 * CA and a user role, a catalog KV key. Then per operation, after a 1 s warm-up per side,
 * interleaved rounds (before, after, before, after, ...) of BENCH_SECONDS with 4 keep-alive
 * clients (bench/_http.ts); every answer is checked, the first failure stops the run. Server CPU
 * per request: /proc/<pid>/stat, user + system, all threads, around each measurement (bench/_rate.ts).
 * Keep BENCH_SECONDS under 5: a keep-alive connection left idle ~6 s races node's HTTP server
 * closing it ("socket hang up"; plain node:http too), so no side idles longer than one measurement.
 *   BENCH_BEFORE=<git rev> npx tsx bench/side-by-side.ts     (BENCH_ROUNDS=5 BENCH_SECONDS=3)
 *   BENCH_AFTER=<git rev>     the after side from a worktree of that revision, not this tree
 *   BENCH_BEFORE=this         the before side is this tree too (to compare settings, below)
 *   BENCH_BEFORE_ENV='METRICS=off' / BENCH_AFTER_ENV='K=V,K=V'   settings of one side's process
 *     e.g. the cost of metrics: BENCH_BEFORE=this BENCH_BEFORE_ENV=METRICS=off npx tsx bench/side-by-side.ts
 * Prints figures only: exits non-zero when it cannot run, never on a ratio.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { caller, median, send, type Reply } from './_http';
import { rateAndCpu, rateFor } from './_rate';
import { stopChild, withCertificate } from './_servers';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CLIENTS = 4;
const KV_KEY = 'bench/side-by-side/config';
const KV_VALUE = '{"url":"postgres://db.internal:5432/app","pool":20}';

interface Service {
  url: string;
  token: string;
  child: ChildProcess;
}

const cleanups: (() => Promise<void> | void)[] = [];
let failures = 0;

function git(...args: string[]): string {
  return execFileSync('git', ['-C', ROOT, ...args])
    .toString()
    .trim();
}

/** A detached worktree of `rev` under the temp directory, with this tree's node_modules linked in where it has none. */
function worktree(rev: string): string {
  const parent = mkdtempSync(join(tmpdir(), 'latchkey-bench-sbs-'));
  const dir = join(parent, 'tree');
  execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, rev], { stdio: 'ignore' });
  cleanups.push(() => {
    execFileSync('git', ['-C', ROOT, 'worktree', 'remove', '--force', dir], { stdio: 'ignore' });
    rmSync(parent, { recursive: true, force: true });
  });
  if (!existsSync(join(dir, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** functions/local.ts of `tree` in its own process; resolves with its URL (from its "listening on" line) and root token. */
/** `K=V,K=V` (BENCH_BEFORE_ENV, BENCH_AFTER_ENV) as environment variables. */
function sideEnv(spec: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (spec ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new Error(`not K=V: ${JSON.stringify(pair)}`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

function startService(tree: string, extra: Record<string, string> = {}): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-sbs-data-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local.ts'], {
    cwd: tree,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      LOCAL_STORE: 'level',
      LOCAL_STORE_SYNC: 'true',
      LOG_LEVEL: 'silent',
      SWEEP_INTERVAL_MS: '3600000',
      AUDIT_DEVICES: process.env.AUDIT_DEVICES ?? `file:${join(dataDir, 'audit.log')}`,
      NODE_NO_WARNINGS: '1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...extra,
    },
  });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolve({ url, token: readFileSync(join(dataDir, 'root-token'), 'utf8').trim(), child });
    });
    child.once('exit', (code, signal) => reject(new Error(`the service in ${tree} exited (${code ?? signal}): ${err}`)));
  });
}

/** The same mounts, roles and key on both services, through HTTP with the root token. */
async function configure(s: Service): Promise<void> {
  const auth = { 'x-svc-token': s.token };
  const post = (path: string, body: unknown) => caller(`${s.url}/v1/${path}`, 'POST', auth, body)();
  await post('pki/root/generate/internal', { common_name: 'Side By Side Root', key_type: 'ec', key_bits: 256, ttl: '8760h' });
  await post('pki/roles/stored', {
    allowed_domains: 'example.com',
    allow_subdomains: true,
    key_type: 'ec',
    key_bits: 256,
    ttl: '1h',
    no_store: false,
  });
  await post('ssh/config/ca', { key_type: 'ed25519' });
  await post('ssh/roles/user', { key_type: 'ca', allow_user_certificates: true, allowed_users: '*', ttl: '30m' });
  // The catalog token: sys's tokens; the root token passes whether the catalog's ACLs are on or off.
  const put = await send(`${s.url}/v1/kv/${KV_KEY}`, 'PUT', { 'x-consul-token': s.token }, KV_VALUE);
  if (put.status !== 200 || put.body.toString().trim() !== 'true') throw new Error(`kv PUT answered ${put.status}: ${put.body.toString()}`);
}

/** `call`, counting a failure (and rethrowing it) unless `ok` holds of the answer. */
function checked(call: () => Promise<Reply>, ok: (r: Reply) => void): () => Promise<unknown> {
  return async () => {
    try {
      ok(await call());
    } catch (e) {
      failures++;
      throw e;
    }
  };
}

function contains(what: string, r: Reply): void {
  if (!r.body.includes(what)) throw new Error(`answer without ${what}: ${r.body.toString().slice(0, 300)}`);
}

interface Operation {
  name: string;
  load: (s: Service, userKey: string) => () => Promise<unknown>;
}

const KV_BASE64 = Buffer.from(KV_VALUE).toString('base64');
const OPERATIONS: Operation[] = [
  {
    name: 'POST pki/issue/stored (EC P-256, stored)',
    load: (s) =>
      checked(
        caller(`${s.url}/v1/pki/issue/stored`, 'POST', { 'x-svc-token': s.token }, { common_name: 'www.example.com' }),
        withCertificate,
      ),
  },
  {
    name: 'POST ssh/sign/user (Ed25519 key and CA)',
    load: (s, userKey) =>
      checked(
        caller(`${s.url}/v1/ssh/sign/user`, 'POST', { 'x-svc-token': s.token }, { public_key: userKey, valid_principals: 'alice' }),
        (r) => contains('"signed_key":"ssh-ed25519-cert-v01@openssh.com ', r),
      ),
  },
  {
    name: `GET kv/${KV_KEY} (root token)`,
    load: (s) =>
      checked(caller(`${s.url}/v1/kv/${KV_KEY}`, 'GET', { 'x-consul-token': s.token }), (r) => contains(`"Value":"${KV_BASE64}"`, r)),
  },
];

interface Round {
  before: { rate: number; cpuUs: number };
  after: { rate: number; cpuUs: number };
}

async function measure(load: () => Promise<unknown>, s: Service, what: string): Promise<{ rate: number; cpuUs: number }> {
  const m = await rateAndCpu(SECONDS, CLIENTS, load, s.child.pid).catch((e: unknown) => {
    const exited = s.child.exitCode ?? s.child.signalCode;
    throw new Error(`${what}${exited === null ? '' : ` (the service exited: ${exited})`}: ${e instanceof Error ? e.message : String(e)}`);
  });
  if (m.cpuUs === undefined) throw new Error(`no CPU time readable from /proc/${s.child.pid}/stat`);
  return { rate: m.rate, cpuUs: m.cpuUs };
}

function printTable(name: string, rounds: Round[]): void {
  const f = (x: number) => x.toFixed(0);
  const ratios = rounds.map((r) => r.after.cpuUs / r.before.cpuUs);
  console.log(`\n${name}, ${CLIENTS} clients, ${SECONDS} s per side per round`);
  console.log('| round | before CPU us/req | after CPU us/req | after / before | before req/s | after req/s |');
  console.log('|---|---|---|---|---|---|');
  rounds.forEach((r, i) =>
    console.log(
      `| ${i + 1} | ${f(r.before.cpuUs)} | ${f(r.after.cpuUs)} | ${ratios[i]!.toFixed(3)} | ${f(r.before.rate)} | ${f(r.after.rate)} |`,
    ),
  );
  const med = (pick: (r: Round) => number) => f(median(rounds.map(pick)));
  console.log(
    `| median | ${med((r) => r.before.cpuUs)} | ${med((r) => r.after.cpuUs)} | **${median(ratios).toFixed(3)}** (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) | ${med((r) => r.before.rate)} | ${med((r) => r.after.rate)} |`,
  );
}

async function main(): Promise<void> {
  const before = process.env.BENCH_BEFORE;
  if (!before) {
    console.log('BENCH_BEFORE=<git rev> is not set: skipped (BENCH_BEFORE=<rev> npx tsx bench/side-by-side.ts)');
    return;
  }
  const afterRev = process.env.BENCH_AFTER;
  const dirty = !afterRev && git('status', '--porcelain', '--', 'lib', 'functions', 'infra') !== '';
  const afterLabel = afterRev ? git('rev-parse', '--short', afterRev) : `this tree, HEAD ${git('rev-parse', '--short', 'HEAD')}`;
  const beforeLabel = before === 'this' ? `this tree` : git('rev-parse', '--short', before);
  const envs = { before: sideEnv(process.env.BENCH_BEFORE_ENV), after: sideEnv(process.env.BENCH_AFTER_ENV) };
  const shown = (e: Record<string, string>) => (Object.keys(e).length ? ` with ${JSON.stringify(e)}` : '');
  console.log(
    `before: ${beforeLabel}${shown(envs.before)}; after: ${afterLabel}${shown(envs.after)}${dirty ? ' (uncommitted changes under lib/, functions/ or infra/)' : ''}`,
  );
  console.log(
    `node ${process.version}; ${ROUNDS} rounds; AUDIT_DEVICES=${process.env.AUDIT_DEVICES ?? 'file:$DATA_DIR/audit.log (the local default)'}`,
  );
  const keyDir = mkdtempSync(join(tmpdir(), 'latchkey-bench-sbs-key-'));
  cleanups.push(() => rmSync(keyDir, { recursive: true, force: true }));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(keyDir, 'user')]);
  const userKey = readFileSync(join(keyDir, 'user.pub'), 'utf8').trim();

  const sides = {
    before: await startService(before === 'this' ? ROOT : worktree(before), envs.before),
    after: await startService(afterRev ? worktree(afterRev) : ROOT, envs.after),
  };
  await configure(sides.before);
  await configure(sides.after);
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  console.log(`load average at start: ${load()}`);
  const loads = OPERATIONS.map((op) => ({ before: op.load(sides.before, userKey), after: op.load(sides.after, userKey) }));
  for (const l of loads) for (const side of ['before', 'after'] as const) await rateFor(1, CLIENTS, l[side]);
  const results: Round[][] = OPERATIONS.map(() => []);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [k, l] of loads.entries()) {
      const round: Partial<Round> = {};
      for (const side of ['before', 'after'] as const)
        round[side] = await measure(l[side], sides[side], `${OPERATIONS[k]!.name}, ${side}, round ${i + 1}`);
      results[k]!.push(round as Round);
    }
  }
  console.log(`load average at end: ${load()}`);
  OPERATIONS.forEach((op, k) => printTable(op.name, results[k]!));
  console.log(`\nfailed answers: ${failures}`);
}

const onSignal = () => void cleanUp().then(() => process.exit(130));
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);

async function cleanUp(): Promise<void> {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch (e) {
      console.error('cleanup:', e instanceof Error ? e.message : e);
    }
  }
}

try {
  await main();
} catch (e) {
  console.error(`failed answers: ${failures}; ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await cleanUp();
}
