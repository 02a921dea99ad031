/**
 * The local service (functions/local.ts, what `npm start` runs) in a child process, for the
 * tests that kill it: a free port, the spawn with DATA_DIR/PORT (quiet, the sweeper hourly
 * unless `env` says otherwise), the wait for sys/health, and a SIGKILL that waits for the exit.
 * Every child started is killed by killLocalChildren() (an afterAll).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const ROOT_DIR = resolve(import.meta.dirname, '../..');
const running: ChildProcess[] = [];

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

export interface LocalChildOptions {
  dataDir: string;
  port: number;
  /** Over this process's environment; a variable set to undefined is removed. */
  env?: Record<string, string | undefined>;
  stdio?: 'ignore' | 'inherit';
}

/** Starts the local service and resolves once sys/health answers 200 (fails if it exits first). */
export async function startLocalChild(o: LocalChildOptions): Promise<ChildProcess> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: o.dataDir,
    PORT: String(o.port),
    LOG_LEVEL: 'silent',
    SWEEP_INTERVAL_MS: '3600000',
    // As `npm start` sets it: no AWS SDK Node-version warning on the child's stderr.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/local.ts'], { cwd: ROOT_DIR, env, stdio: o.stdio ?? 'ignore' });
  running.push(child);
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${o.port}/v1/sys/health`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null) throw new Error(`the local service exited with ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the local service did not start');
}

/** kill -9, resolved once the process has exited. */
export function killChild(child: ChildProcess): Promise<void> {
  return new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    child.once('exit', () => res());
    child.kill('SIGKILL');
  });
}

/** Kills every child startLocalChild started. */
export async function killLocalChildren(): Promise<void> {
  await Promise.all(running.map(killChild));
}
