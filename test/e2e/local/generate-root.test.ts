/**
 * A lost local root token (issue 27): `npm run admin -- generate-root --local --data-dir <dir>`,
 * with the server stopped, makes a new one on the data directory (printed once, written to
 * <dir>/root-token 0600, audited with the token as an HMAC). It refuses while the server runs
 * (the store's lock), a directory that is no data directory (creating nothing there), and
 * --local with init. Nothing is served: the data directory is the credential.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, killLocalChildren, startLocalChild } from '../../helpers/local-child';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const dirs: string[] = [];
afterAll(async () => {
  await killLocalChildren();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The documented command; answers its exit code and output. */
function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  // The local audit device (DATA_DIR/audit.log), as a user's shell has it: vitest turns audit off.
  const env: NodeJS.ProcessEnv = { ...process.env, npm_config_update_notifier: 'false' };
  delete env.AUDIT_DEVICES;
  return new Promise((done) => {
    execFile('npm', ['run', '--silent', 'admin', '--', ...args], { cwd: ROOT, env }, (err, stdout, stderr) =>
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((ok) => {
    child.once('exit', () => ok());
    child.kill('SIGTERM');
  });
}

async function lookupSelf(port: number, token: string): Promise<{ status: number; policies?: string[] }> {
  const r = await fetch(`http://127.0.0.1:${port}/v1/auth/token/lookup-self`, { headers: { 'x-svc-token': token } });
  return {
    status: r.status,
    policies: r.status === 200 ? ((await r.json()) as { data: { policies: string[] } }).data.policies : undefined,
  };
}

describe('npm run admin -- generate-root --local', () => {
  it('makes a new root token on a stopped server’s data directory, and refuses while it runs', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-genroot-'));
    dirs.push(dataDir);
    const port = await freePort();
    const server = await startLocalChild({ dataDir, port, env: { AUDIT_DEVICES: undefined } });
    const first = readFileSync(join(dataDir, 'root-token'), 'utf8').trim();

    const running = await admin(['generate-root', '--local', '--data-dir', dataDir]);
    expect(running.code).not.toBe(0);
    expect(running.stderr).toContain(
      `admin: the server is running on ${dataDir} (its store is locked): stop it, run this again, then start it`,
    );

    await stop(server);
    rmSync(join(dataDir, 'root-token')); // lost
    const made = await admin(['generate-root', '--local', '--data-dir', dataDir]);
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const token = /^(lk\.\S+)$/m.exec(made.stdout)?.[1];
    expect(token).toBeDefined();
    expect(token).not.toBe(first);
    const file = join(dataDir, 'root-token');
    expect(readFileSync(file, 'utf8')).toBe(`${token}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const again = await startLocalChild({ dataDir, port, env: { AUDIT_DEVICES: undefined } });
    expect(await lookupSelf(port, token!)).toEqual({ status: 200, policies: ['root'] });
    expect((await lookupSelf(port, first)).status).toBe(200); // the lost one is not revoked by this
    const audit = readFileSync(join(dataDir, 'audit.log'), 'utf8');
    expect(audit).toContain('sys/generate-root');
    expect(audit).toContain('local:admin');
    expect(audit).not.toContain(token!);
    await stop(again);
  }, 90_000);

  it('refuses a directory that is no data directory, creating nothing, and --local with init', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'latchkey-genroot-empty-'));
    dirs.push(empty);
    const r = await admin(['generate-root', '--local', '--data-dir', empty]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`admin: ${empty} is not a local data directory (no local.key and store)`);
    expect(readdirSync(empty)).toEqual([]);
    expect(existsSync(join(empty, 'local.key'))).toBe(false);

    const init = await admin(['init', '--local']);
    expect(init.code).not.toBe(0);
    expect(init.stderr).toMatch(/^admin: --local works with generate-root only/);
  }, 60_000);
});
