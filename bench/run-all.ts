/**
 * npm run bench: runs every benchmark in bench/ (each file prints its own figures), one after
 * another in its own process so they do not disturb each other.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run-all.ts' && !f.startsWith('_'))
  .filter((f) => !only.length || only.some((o) => f.startsWith(o)))
  .sort();

let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(dir, f)], {
    stdio: 'inherit',
    env: { ...process.env, LOG_LEVEL: 'silent', NODE_NO_WARNINGS: '1' },
  });
  if (r.status !== 0) failed++;
}
console.log(`\nnode ${process.version}; ${files.length} benchmarks, ${failed} failed`);
process.exit(failed ? 1 : 0);
