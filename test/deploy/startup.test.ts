/**
 * What a user reads on `npm install` and `npm start`: no AWS SDK Node-version warning on the
 * local start (the SDK's own documented switch, set by the start script: the deployed functions
 * run Node 22 and never load the SDK), and every dependency install script reviewed in
 * package.json's allowScripts (npm 11), so npm does not warn about unreviewed ones.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

/** Starts `npm start` on a fresh data directory until it listens; answers what it printed. */
function startOnce(): Promise<{ stdout: string; stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'latchkey-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
  delete env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  delete env.NODE_NO_WARNINGS;
  const child = spawn('npm', ['run', '--silent', 'start'], { cwd: ROOT, env, detached: true });
  let stdout = '';
  let stderr = '';
  let stopping = false;
  return new Promise((done, fail) => {
    // Once: output after the kill (the server's shutdown line) must not schedule a second one.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      rmSync(dataDir, { recursive: true, force: true });
    };
    const timer = setTimeout(() => {
      stop();
      fail(new Error(`npm start did not listen: ${stdout} ${stderr}`));
    }, 60_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/listening on/.test(stdout) && !stopping) {
        clearTimeout(timer);
        setTimeout(() => {
          stop();
          done({ stdout, stderr });
        }, 300);
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  });
}

describe('start-up output', () => {
  it('npm start prints the root token notice and the address, and no SDK version warning', async () => {
    const { stdout, stderr } = await startOnce();
    expect(stdout + stderr).not.toMatch(/NodeVersionSupportWarning|AWS SDK for JavaScript/);
    expect(stdout).toMatch(/^Initialized\. Root token/m);
    expect(stdout).toMatch(/Latchkey listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(stderr.split('\n').filter((l) => l.trim() && !/^npm warn Unknown user config/.test(l))).toEqual([]);
  }, 70_000);

  it('npm finds no dependency install script left unreviewed', async () => {
    const { stdout } = await promisify(execFile)('npm', ['install-scripts', 'ls'], { cwd: ROOT });
    expect(stdout).toMatch(/No packages with unreviewed install scripts/);
  });
});
