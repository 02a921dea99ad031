/**
 * Cold init of two checkouts side by side, for a noisy machine: every function of this tree is
 * bundled from this tree and from `BASE` (another checkout, e.g. a `git worktree` of the commit
 * before a change), then their cold starts alternate, base then this, `BENCH_RUNS` pairs per
 * function, as bench/bundle.ts runs them (same runner, same dynalite table, same request).
 *
 *   BASE=/tmp/cold-base BENCH_RUNS=9 npx tsx bench/_cold-compare.ts [function...]
 */
import { build } from 'esbuild';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo } from '../lib/store/embedded';
import {
  buildFunctions,
  coldStart,
  firstRequest,
  initialisedTable,
  median,
  round,
  RUNNER,
  type ColdStart,
  type FunctionDef,
} from './bundle';

const ROOT = join(import.meta.dirname, '..');

async function bundleFrom(root: string, fn: FunctionDef, outfile: string): Promise<string> {
  const settings = createRequire(join(root, 'package.json'))('./infra/esbuild.cjs') as { esbuild: Record<string, unknown> };
  const entry = join(root, `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.ts`);
  await build({ ...settings.esbuild, entryPoints: [entry], outfile, absWorkingDir: root, logLevel: 'error' });
  return outfile;
}

const summary = (runs: ColdStart[]) => {
  const inits = runs.map((c) => c.importMs + c.firstResponseMs);
  return {
    import: round(median(runs.map((c) => c.importMs))),
    first: round(median(runs.map((c) => c.firstResponseMs))),
    init: round(median(inits)),
    max: round(Math.max(...inits)),
    second: round(median(runs.map((c) => c.secondResponseMs))),
  };
};

async function main() {
  const base = process.env.BASE;
  if (!base) throw new Error('BASE=<checkout to compare with> is needed');
  const n = Number(process.env.BENCH_RUNS ?? 7);
  const only = process.argv.slice(2);
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-cold-compare-'));
  const dynamo = await startEmbeddedDynamo();
  try {
    const { env } = await initialisedTable(dir, dynamo.endpoint);
    const runner = join(dir, 'runner.mjs');
    await writeFile(runner, RUNNER);
    console.log(`cold init, base ${base} vs this tree, ${n} alternating pairs per function, node ${process.version}`);
    console.log(
      'function        | base import / first / init median / max | this import / first / init median / max | 2nd resp base / this',
    );
    for (const [name, fn] of Object.entries(buildFunctions())) {
      if (only.length && !only.includes(name)) continue;
      const a = await bundleFrom(base, fn, join(dir, `base-${name}.mjs`));
      const b = await bundleFrom(ROOT, fn, join(dir, `this-${name}.mjs`));
      const runs: [ColdStart[], ColdStart[]] = [[], []];
      for (let i = 0; i < n; i++) {
        runs[0].push(await coldStart(runner, a, firstRequest(name, fn).event, env));
        runs[1].push(await coldStart(runner, b, firstRequest(name, fn).event, env));
      }
      const [x, y] = runs.map(summary) as [ReturnType<typeof summary>, ReturnType<typeof summary>];
      console.log(
        `${name.padEnd(15)} | ${x.import} / ${x.first} / ${x.init} / ${x.max} | ${y.import} / ${y.first} / ${y.init} / ${y.max} | ${x.second} / ${y.second}`,
      );
    }
  } finally {
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
