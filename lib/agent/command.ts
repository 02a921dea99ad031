/**
 * The command run after a renewal (to reload a server): `sh -c COMMAND`, its output on the
 * agent's standard error (standard output carries only the log lines), its exit logged. It
 * never fails the agent: a command that cannot start or exits non-zero is a log line.
 */
import { spawn } from 'node:child_process';

export interface CommandResult {
  exit_code: number | null;
  signal?: string;
  error?: string;
}

export function runCommand(command: string, env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn('/bin/sh', ['-c', command], { stdio: ['ignore', 2, 2], env });
    } catch (e) {
      resolve({ exit_code: null, error: (e as Error).message });
      return;
    }
    child.once('error', (e) => resolve({ exit_code: null, error: e.message }));
    child.once('exit', (code, signal) => resolve({ exit_code: code, ...(signal ? { signal } : {}) }));
  });
}
