/**
 * `npm start` as a newcomer runs it (issue 27): stopped by the PID the shell reports (npm's),
 * with SIGTERM or SIGINT, the whole process tree goes and the store's lock with it (a second
 * start on the same data directory works), and the server prints one shutdown line. A second
 * start on a data directory in use, or on a busy port, prints one line saying what to do and
 * exits non-zero (no stack trace).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/local-child';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) {
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'latchkey-npm-start-'));
  dirs.push(d);
  return d;
}

interface Run {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `npm start` (or the entry itself) in its own process group, so the test can see its whole tree. */
function run(cmd: string[], dataDir: string, port: number): Run {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'info',
    npm_config_update_notifier: 'false',
  };
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: ROOT, env, detached: true });
  started.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => done({ code, signal })),
  );
  return { child, out: () => out, err: () => err, exited };
}

async function listening(r: Run): Promise<void> {
  for (let i = 0; i < 600 && !/listening on/.test(r.out()); i++) {
    if (r.child.exitCode !== null) throw new Error(`exited ${r.child.exitCode}: ${r.out()} ${r.err()}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  expect(r.out()).toMatch(/Latchkey listening on/);
}

/** True while any process of the group is alive (kill 0 checks without signalling). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function groupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (!groupAlive(pgid)) return true;
    await new Promise((ok) => setTimeout(ok, 50));
  }
  return false;
}

const NPM_START = ['npm', 'start'];

describe('npm start stops on a signal to its PID', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm's PID ends the whole tree, prints one shutdown line and releases the store`, async () => {
      const dataDir = freshDir();
      const port = await freePort();
      const first = run(NPM_START, dataDir, port);
      await listening(first);
      process.kill(first.child.pid!, signal);
      await first.exited;
      expect(await groupGone(first.child.pid!)).toBe(true);
      expect(first.out()).toMatch(new RegExp(`^Latchkey stopped \\(${signal}\\); the store in .+ is closed$`, 'm'));

      // The lock and the port are free: the same data directory and port start again, with the data kept.
      const second = run(NPM_START, dataDir, port);
      await listening(second);
      expect(second.out()).not.toMatch(/Initialized/);
      expect((await fetch(`http://127.0.0.1:${port}/v1/sys/health`)).status).toBe(200);
      process.kill(second.child.pid!, 'SIGTERM');
      await second.exited;
      expect(await groupGone(second.child.pid!)).toBe(true);
    }, 90_000);
  }
});

describe('a second start prints one line saying what to do', () => {
  const ENTRY = [process.execPath, '--import', 'tsx', 'functions/local.ts'];

  it('on a data directory in use, and on a busy port', async () => {
    const dataDir = freshDir();
    const port = await freePort();
    const first = run(ENTRY, dataDir, port);
    await listening(first);

    const sameDir = run(ENTRY, dataDir, await freePort());
    expect((await sameDir.exited).code).toBe(1);
    expect(sameDir.err().trimEnd().split('\n')).toEqual([
      `latchkey: cannot start: the store at ${join(dataDir, 'store')} is in use by another process (its LOCK is held): stop that process, or give this one another DATA_DIR`,
    ]);

    const samePort = run(ENTRY, freshDir(), port);
    expect((await samePort.exited).code).toBe(1);
    expect(samePort.err().trimEnd().split('\n')).toEqual([
      `latchkey: cannot start: port ${port} on 127.0.0.1 is in use by another process: stop that process, or give this one another PORT`,
    ]);

    // Through npm as well: npm exits non-zero, and our line is there without a stack trace.
    const viaNpm = run(NPM_START, dataDir, await freePort());
    expect((await viaNpm.exited).code).not.toBe(0);
    expect(viaNpm.err()).toMatch(/^latchkey: cannot start: the store at .* is in use by another process/m);
    expect(viaNpm.err()).not.toMatch(/^\s+at /m);

    process.kill(first.child.pid!, 'SIGTERM');
    await first.exited;
  }, 90_000);
});
