/**
 * A Go program as a long-running checker (Debian golang-go, no module downloads): built once per
 * source version into the temp dir (GOPATH mode, offline; `gopath` for Debian's Go packages under
 * /usr/share/gocode), then one process answering many checks over stdin/stdout, one JSON line each.
 */
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';

/** The built program of `source` (a .go file): built once per source version, shared by every test file. */
export function goBinary(source: string, gopath?: string): string {
  const name = basename(source, '.go');
  const text = readFileSync(source);
  const dir = join(tmpdir(), `latchkey-${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`);
  const bin = join(dir, name);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, 'build-'));
  try {
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: work,
      GOCACHE: join(work, 'cache'),
      GOPATH: gopath ?? join(work, 'gopath'),
      GOTOOLCHAIN: 'local',
      GOPROXY: 'off',
      GOFLAGS: '',
      GO111MODULE: 'off',
      CGO_ENABLED: '0',
    };
    execFileSync('go', ['build', '-o', join(work, name), source], { env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 });
    renameSync(join(work, name), bin);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return bin;
}

export interface GoChecker {
  ask<T>(request: object): Promise<T>;
  close(): Promise<void>;
}

/** One checker process (`bin`), for a test file. */
export function startGoChecker(bin: string): GoChecker {
  const proc: ChildProcessWithoutNullStreams = spawn(bin, [], { stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting: ((line: string) => void)[] = [];
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: proc.stdout }).on('line', (line) => waiting.shift()?.(line));
  return {
    ask: <T>(req: object) =>
      new Promise<T>((resolve, reject) => {
        if (proc.exitCode !== null) return reject(new Error(`${basename(bin)} exited: ${stderr}`));
        waiting.push((line) => resolve(JSON.parse(line) as T));
        proc.stdin.write(`${JSON.stringify(req)}\n`);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null) return resolve();
        proc.once('exit', () => resolve());
        proc.stdin.end();
      }),
  };
}
