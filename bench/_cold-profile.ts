/**
 * Where a cold start's time goes, per source module: each named function (default sys, pki,
 * ssh) is bundled as bench/bundle.ts bundles it, but unminified, so esbuild's `// path`
 * comments tell which module each line of the bundle came from; one fresh `node --cpu-prof`
 * process imports it and serves the bench's first request against dynalite; the profile's
 * samples are summed by the module of the function they fell in, split at the import/first
 * response boundary.
 *
 *   npx tsx bench/_cold-profile.ts [function...]
 *   PROFILE_TOP=40 npx tsx bench/_cold-profile.ts ssh
 *
 * Figures are indicative (unminified code parses a little slower); the cold-start times to
 * quote are bench/bundle.ts's.
 */
import { build } from 'esbuild';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import { buildFunctions, initialisedTable, RUNNER_CONTEXT, round } from './bundle';
import { httpEvent } from '../test/helpers/apigw';
import { createRequire } from 'node:module';

const requireCjs = createRequire(import.meta.url);
const settings = requireCjs('../infra/esbuild.cjs') as { esbuild: Record<string, unknown> };
const ROOT = join(import.meta.dirname, '..');

const RUNNER = `
const mod = await import(process.argv[2]);
globalThis.__imported = performance.now();
${RUNNER_CONTEXT}
await mod.handler(JSON.parse(process.env.BENCH_EVENT), context);
process.stdout.write(JSON.stringify({ imported: globalThis.__imported, done: performance.now() }));
process.exit(0);
`;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  /** Lines (1-based) the node's samples fell on: top-level code of the whole bundle is one function. */
  positionTicks?: { line: number; ticks: number }[];
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** For each line of the bundle, the module it came from (esbuild's `// path` comments). */
function moduleOfLines(source: string): string[] {
  const out: string[] = [];
  let current = '(banner)';
  for (const line of source.split('\n')) {
    const m = /^\/\/ (\S+\.(?:[cm]?js|ts|json))$/.exec(line);
    if (m) current = m[1]!.replace(/^node_modules\//, '');
    out.push(current);
  }
  return out;
}

function shortModule(path: string): string {
  const pkg = /^(@[^/]+\/[^/]+|[^/]+)\//.exec(path);
  if (path.startsWith('lib/') || path.startsWith('functions/')) return path.split('/').slice(0, 2).join('/');
  return pkg ? pkg[1]! : path;
}

/** PROFILE_DETAIL=hono,ssh2: those modules' samples by function name too. */
const DETAIL = new Set((process.env.PROFILE_DETAIL ?? '').split(',').filter(Boolean));
const detailed = (module: string, fn: string) => (DETAIL.has(module) ? `${module} ${fn || '(top level)'}` : module);

function summarise(profile: Profile, bundleUrl: string, lines: string[], splitAt: number) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n);
  // PROFILE_CALLERS=1: node's own work (require, compile, crypto) named by the bundle function that called it.
  const caller = (n: ProfileNode): string => {
    for (let p = parent.get(n.id); p; p = parent.get(p.id)) {
      if (p.callFrame.url === bundleUrl) return ` <- ${shortModule(lines[p.callFrame.lineNumber] ?? '?')} ${p.callFrame.functionName}`;
    }
    return '';
  };
  const phases = [new Map<string, number>(), new Map<string, number>()];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const node = byId.get(profile.samples[i]!)!;
    const { url, lineNumber, functionName } = node.callFrame;
    const phase = phases[t / 1000 < splitAt ? 0 : 1]!;
    const add = (key: string, ms: number) => phase.set(key, (phase.get(key) ?? 0) + ms);
    const ms = profile.timeDeltas[i]! / 1000;
    if (url === bundleUrl) {
      // Spread the sample over the lines the node was seen on (the node's own share of them).
      const ticks = node.positionTicks ?? [{ line: lineNumber + 1, ticks: 1 }];
      const total = ticks.reduce((a, p) => a + p.ticks, 0);
      for (const p of ticks) add(detailed(shortModule(lines[p.line - 1] ?? '?'), functionName), (ms * p.ticks) / total);
    } else if (url.startsWith('node:') || url === '') {
      const who = process.env.PROFILE_CALLERS ? caller(node) : '';
      add(functionName ? `(native ${functionName.slice(0, 30)})${who}` : '(program/gc)', ms);
    } else add('(runner)', ms);
  }
  return phases;
}

function profiled(runner: string, file: string, profDir: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const args = ['--cpu-prof', '--cpu-prof-interval=100', `--cpu-prof-dir=${profDir}`, runner, pathToFileURL(file).href];
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${file} exited ${code}: ${err}`))));
  });
}

async function main() {
  const names = process.argv.slice(2).length ? process.argv.slice(2) : ['sys', 'pki', 'ssh'];
  const top = Number(process.env.PROFILE_TOP ?? 25);
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-cold-profile-'));
  const dynamo = await startEmbeddedDynamo();
  try {
    const { env } = await initialisedTable(dir, dynamo.endpoint);
    const runner = join(dir, 'runner.mjs');
    await writeFile(runner, RUNNER);
    const fns = buildFunctions();
    for (const name of names) {
      const fn = fns[name]!;
      const entry = join(ROOT, `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.ts`);
      const outdir = join(dir, 'out');
      await build({ ...settings.esbuild, minify: false, entryPoints: [entry], outdir, outExtension: { '.js': '.mjs' }, logLevel: 'error' });
      const file = join(outdir, `${name}.mjs`);
      const route = fn.events.find((e) => 'httpApi' in e);
      const path = name === 'sys' ? '/v1/sys/health' : route && 'httpApi' in route ? route.httpApi.path.replace('{proxy+}', '') : '/';
      const profDir = join(dir, `prof-${name}`);
      // Not spawnSync: dynalite runs in this process and must answer meanwhile.
      const out = await profiled(runner, file, profDir, { ...env, BENCH_EVENT: JSON.stringify(httpEvent('GET', path)) });
      const times = JSON.parse(out.trim().split('\n').at(-1)!) as { imported: number; done: number };
      const profile = JSON.parse(await readFile(join(profDir, (await readdir(profDir))[0]!), 'utf8')) as Profile;
      const lines = moduleOfLines(await readFile(file, 'utf8'));
      // The profile stops at exit, right after the first response: the boundary is that long before its end.
      const splitAt = profile.endTime / 1000 - (times.done - times.imported);
      const [imp, first] = summarise(profile, pathToFileURL(file).href, lines, splitAt);
      console.log(
        `\n== ${name} (GET ${path}): import ${round(times.imported)} ms, first response ${round(times.done - times.imported)} ms (profiled)`,
      );
      for (const [label, phase] of [
        ['import', imp!],
        ['first response', first!],
      ] as const) {
        const rows = [...phase.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
        console.log(`-- ${label}: ${round([...phase.values()].reduce((a, b) => a + b, 0))} ms sampled`);
        for (const [k, ms] of rows) console.log(`  ${String(round(ms)).padStart(7)}  ${k}`);
      }
    }
  } finally {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
