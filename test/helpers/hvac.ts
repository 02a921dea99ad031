/**
 * Runs a python3-hvac (Debian package) script against a service over real HTTP, with LATCHKEY_ADDR,
 * LATCHKEY_TOKEN and `env` in its environment; answers the JSON it prints.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listen } from '../../lib/local/http-server';
import type { TestService } from './service';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function runHvac(svc: TestService, script: string, env: Record<string, string> = {}): Promise<Record<string, any>> {
  // The local server's front accepts the LIST method hvac sends.
  const server = await listen(svc.app.fetch, { port: 0 });
  try {
    const { stdout } = await promisify(execFile)('/usr/bin/python3', [script], {
      env: { ...process.env, ...env, LATCHKEY_ADDR: server.url, LATCHKEY_TOKEN: svc.root, PYTHONDONTWRITEBYTECODE: '1' },
      timeout: 120_000,
    });
    return JSON.parse(stdout) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  } finally {
    await server.close();
  }
}
