/**
 * The CLI as a user runs it: `node bin/latchkey.mjs ARGS` in a subprocess, with a fresh HOME,
 * only the environment given (PATH kept), stdin from `input`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT_DIR = resolve(import.meta.dirname, '../../..');
export const BIN = join(ROOT_DIR, 'bin/latchkey.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export const freshHome = () => mkdtempSync(join(tmpdir(), 'latchkey-cli-home-'));

export function runCli(
  args: string[],
  o: { env?: Record<string, string | undefined>; input?: string; bin?: string } = {},
): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  for (const [k, v] of Object.entries(o.env ?? {})) if (v !== undefined) env[k] = v;
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [o.bin ?? BIN, ...args], { cwd: ROOT_DIR, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', rej);
    child.on('close', (code) => res({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(o.input ?? '');
  });
}
