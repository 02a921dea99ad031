/**
 * Servers the benchmarks drive from their own process: a script printing one JSON line once
 * ready (bench/_local-server.ts, bench/_pki-server.ts) in a child process, and cfssl serve.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { caller } from './_http';

export interface Child<T> {
  /** The first JSON line the script printed. */
  info: T;
  child: ChildProcess;
  /** Lines the script printed after its first. */
  lines: string[];
}

/**
 * Starts bench/<script> under tsx (node flags `nodeArgs` first) with `env` over this process's
 * environment and waits for its first JSON line; `name` names it when it exits before that.
 */
export function startScript<T>(
  script: string,
  args: string[],
  opts: { name: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[]; stderr?: 'inherit' | 'ignore' },
): Promise<Child<T>> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', join(import.meta.dirname, script), ...args], {
    stdio: ['ignore', 'pipe', opts.stderr ?? 'inherit'],
    env: opts.env ?? process.env,
  });
  return new Promise((resolve, reject) => {
    let buf = '';
    let started: Child<T> | undefined;
    child.stdout!.on('data', (c: Buffer) => {
      buf += c.toString();
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        if (started) started.lines.push(line);
        else if (line.startsWith('{')) {
          started = { info: JSON.parse(line) as T, child, lines: [] };
          resolve(started);
        }
      }
    });
    child.once('exit', () => reject(new Error(`the ${opts.name} exited`)));
  });
}

/**
 * The local service (bench/_local-server.ts) on the store named, in its own process, quiet and
 * without the sweeper; `env` (this process's environment by default) is the rest of its environment.
 */
export function startLocalServer(
  store: 'level' | 'dynalite',
  opts: { name: string; env?: NodeJS.ProcessEnv; nodeArgs?: string[] },
): Promise<Child<{ url: string; token: string }>> {
  return startScript('_local-server.ts', [store], {
    ...opts,
    env: {
      ...(opts.env ?? process.env),
      LOG_LEVEL: 'silent',
      SWEEP_INTERVAL_MS: '3600000',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
  });
}

const CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/** Throws unless an answer carries a PEM certificate (an issue's, over HTTP). */
export function withCertificate(r: { body: Buffer }): void {
  if (!r.body.includes(CERTIFICATE)) throw new Error(`answer without a certificate: ${r.body.toString().slice(0, 300)}`);
}

/** SIGTERM, then waits for the process to exit. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * cfssl serve on one core (GOMAXPROCS=1) with a fresh EC CA in `dir`; undefined when golang-cfssl
 * is not installed. `newcert` asks for a new EC P-256 key and its certificate and throws unless
 * the answer is a success with both in it (HTTP 200 only is not enough: cfssl's envelope says).
 */
export async function startCfssl(
  dir: string,
): Promise<{ newcert: () => Promise<unknown>; pid: number | undefined; stop: () => void } | undefined> {
  try {
    execFileSync('cfssl', ['version'], { stdio: 'ignore' });
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-new',
        '-nodes',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-keyout',
        join(dir, 'ca-key.pem'),
        '-out',
        join(dir, 'ca.pem'),
        '-subj',
        '/CN=cfssl bench CA',
        '-days',
        '30',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    return undefined;
  }
  const port = 18_000 + Math.floor(Math.random() * 4000);
  const child = spawn(
    'cfssl',
    [
      'serve',
      '-address',
      '127.0.0.1',
      '-port',
      String(port),
      '-ca',
      join(dir, 'ca.pem'),
      '-ca-key',
      join(dir, 'ca-key.pem'),
      '-loglevel',
      '5',
    ],
    { stdio: 'ignore', env: { ...process.env, GOMAXPROCS: '1' } },
  );
  const call = caller(
    `http://127.0.0.1:${port}/api/v1/cfssl/newcert`,
    'POST',
    {},
    { request: { CN: 'www.example.com', hosts: ['www.example.com'], key: { algo: 'ecdsa', size: 256 } } },
  );
  const newcert = async () => {
    const r = await call();
    if (!r.body.includes('"success":true') || !r.body.includes(CERTIFICATE) || !r.body.includes('-----BEGIN EC PRIVATE KEY-----')) {
      throw new Error(`cfssl newcert answered without a certificate and an EC key: ${r.body.toString().slice(0, 300)}`);
    }
    return r;
  };
  for (let i = 0; ; i++) {
    try {
      await newcert();
      return { newcert, pid: child.pid, stop: () => child.kill() };
    } catch (e) {
      if (i > 100) {
        child.kill();
        throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
