/**
 * `npm run package` ends when packaging fails, with a non-zero status, instead of printing the
 * error and hanging (a live esbuild rebuild context used to keep the process). Run in a copy of
 * the project: a symlinked node_modules makes the plugin's `npm ls` fail after the bundles are
 * built, the way it was found; a bad deploy setting makes a packaging generator throw.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
let copy: string;

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'latchkey-package-'));
  for (const p of ['serverless.yml', 'package.json', 'package-lock.json', 'tsconfig.json', 'infra', 'functions', 'lib'])
    cpSync(join(ROOT, p), join(copy, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});
afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** Runs `npm run package` in the copy; resolves with its exit status, or 'hung' when killed after the limit. */
function packageIn(dir: string, limitMs: number): Promise<number | 'hung'> {
  return new Promise((done) => {
    const child = execFile(
      'npm',
      ['run', '--silent', 'package'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024, timeout: limitMs, killSignal: 'SIGKILL' },
      (err) => {
        if (!err) return done(0);
        const e = err as { killed?: boolean; code?: number | string };
        done(e.killed ? 'hung' : typeof e.code === 'number' ? e.code : 1);
      },
    );
    child.stdin?.end();
  });
}

describe('npm run package, when packaging fails', () => {
  it('exits non-zero when `npm ls` fails (a dependency that is not installed)', async () => {
    // `npm ls` in a copy with a symlinked node_modules fails on some npm versions only; a
    // declared dependency that is not installed makes it fail on every one.
    const pkg = JSON.parse(readFileSync(join(copy, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    pkg.dependencies['latchkey-not-installed'] = '1.0.0';
    writeFileSync(join(copy, 'package.json'), JSON.stringify(pkg, null, 2));
    const status = await packageIn(copy, 150_000);
    expect(status).not.toBe('hung');
    expect(status).not.toBe(0);
  }, 160_000);

  it('exits non-zero when a packaging generator throws (a bad infra/settings.json)', async () => {
    writeFileSync(join(copy, 'infra', 'settings.json'), JSON.stringify({ managed_keys: { k: { key_id: 'alias/not-an-arn' } } }));
    const status = await packageIn(copy, 120_000);
    expect(status).not.toBe('hung');
    expect(status).not.toBe(0);
  }, 130_000);
});
