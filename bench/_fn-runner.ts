/**
 * One warm Lambda instance of a packaged function, driven from here: a node process imports the
 * bundle (as bench/lambda-duration.ts's runner does, stdout swallowed so that log and audit lines
 * are built but not printed) and calls its handler with each API Gateway v2 event sent over IPC,
 * one at a time, answering the response and when the handler started and returned (same clock
 * as bench/_store-proxy.ts).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { HttpApiEventV2 } from '../test/helpers/apigw';
import { RUNNER_CONTEXT } from './bundle';

export interface Invocation {
  status: number;
  body: string;
  isBase64Encoded: boolean;
  /** Handler call and return, performance.timeOrigin + now() in the function's process. */
  start: number;
  end: number;
}

const RUNNER = `
process.stdout.write = () => true;
const mod = await import(process.argv[2]);
${RUNNER_CONTEXT}
const now = () => performance.timeOrigin + performance.now();
process.on('message', async ({ id, event }) => {
  try {
    const start = now();
    const r = await mod.handler(event, context);
    const end = now();
    process.send({ id, start, end, status: r.statusCode, body: r.body ?? '', isBase64Encoded: !!r.isBase64Encoded });
  } catch (e) {
    process.send({ id, error: String(e && e.stack || e) });
  }
});
process.send({ ready: true });
`;

export async function writeRunner(dir: string): Promise<string> {
  const file = join(dir, 'round-trips-runner.mjs');
  await writeFile(file, RUNNER);
  return file;
}

export interface Instance {
  invoke(event: HttpApiEventV2): Promise<Invocation>;
  close(): void;
}

type Message = { ready: true } | ({ id: number; error?: string } & Invocation);

export function startInstance(runner: string, bundle: string, env: NodeJS.ProcessEnv): Promise<Instance> {
  const child: ChildProcess = fork(runner, [pathToFileURL(bundle).href], { env, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting = new Map<number, { resolve: (i: Invocation) => void; reject: (e: Error) => void }>();
  let next = 0;
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const e = new Error(`function process ${bundle} exited ${code}: ${stderr.trim()}`);
      reject(e);
      for (const w of waiting.values()) w.reject(e);
    });
    child.on('message', (m: Message) => {
      if ('ready' in m) {
        resolve({
          invoke: (event) =>
            new Promise((res, rej) => {
              const id = next++;
              waiting.set(id, { resolve: res, reject: rej });
              child.send({ id, event });
            }),
          close: () => void child.kill(),
        });
        return;
      }
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.error) w?.reject(new Error(m.error));
      else w?.resolve(m);
    });
  });
}
