/**
 * A real sshd on a free loopback port, with its own config, host key and pid file in a temp dir.
 * Test users are created idempotently (useradd). Always call stop() (afterAll).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { keygen, tempDir, type KeyFiles } from './ssh-keys';

export interface Sshd {
  port: number;
  dir: string;
  hostKey: KeyFiles;
  /** Where per-user authorized keys live: `<dir>/keys/<user>`. */
  keysDir: string;
  log: () => string;
  stop: () => Promise<void>;
}

export interface SshdOptions {
  trustedUserCa?: string;
  hostCertificate?: string;
  /** Reuse a host key (e.g. one signed beforehand). */
  hostKey?: KeyFiles;
  /** A KRL (or revoked keys file): sshd's RevokedKeys, read at each login. */
  revokedKeys?: string;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** Creates the user when missing (home under /tmp), unlocks it for key login. */
export function ensureUser(name: string, home = `/tmp/latchkey-home-${name}`): string {
  try {
    execFileSync('id', [name], { stdio: 'pipe' });
  } catch {
    execFileSync('useradd', ['-m', '-d', home, '-s', '/bin/sh', name], { stdio: 'pipe' });
  }
  execFileSync('usermod', ['-p', '*', name], { stdio: 'pipe' });
  return execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).split(':')[5]!;
}

function waitForBanner(port: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const sock = createConnection({ host: '127.0.0.1', port });
      sock.once('data', (d) => {
        sock.destroy();
        if (d.toString().startsWith('SSH-')) resolve();
        else retry();
      });
      sock.once('error', retry);
    };
    const retry = () => (Date.now() > deadline ? reject(new Error(`sshd on ${port} did not start`)) : setTimeout(attempt, 50));
    attempt();
  });
}

export async function startSshd(o: SshdOptions = {}): Promise<Sshd> {
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = tempDir('latchkey-sshd-');
  const keysDir = join(dir, 'keys');
  mkdirSync(keysDir, { mode: 0o755 });
  chmodSync(dir, 0o755); // sshd reads <keys>/%u as the user logging in
  const hostKey = o.hostKey ?? keygen(dir, 'ed25519');
  const port = await freePort();
  const lines = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKey.priv}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'UsePAM no',
    'StrictModes no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    `AuthorizedKeysFile ${keysDir}/%u .ssh/authorized_keys`,
    'PermitRootLogin prohibit-password',
    'LogLevel VERBOSE',
    ...(o.trustedUserCa ? [`TrustedUserCAKeys ${o.trustedUserCa}`] : []),
    ...(o.hostCertificate ? [`HostCertificate ${o.hostCertificate}`] : []),
    ...(o.revokedKeys ? [`RevokedKeys ${o.revokedKeys}`] : []),
  ];
  const cfg = join(dir, 'sshd_config');
  writeFileSync(cfg, lines.join('\n') + '\n');
  let output = '';
  const child: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForBanner(port, Date.now() + 10_000);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}: ${output}`);
  }
  return { port, dir, hostKey, keysDir, log: () => output, stop };
}

export interface LoginOptions {
  port: number;
  user: string;
  key: string;
  cert?: string;
  /** A known_hosts file; strict host key checking when given. */
  knownHosts?: string;
  /** The name the host certificate is checked against (HostKeyAlias). */
  hostAlias?: string;
}

/** `ssh ... true`: resolves with the exit code and stderr (never throws). */
export function sshLogin(o: LoginOptions): Promise<{ code: number; stderr: string; stdout: string }> {
  const args = [
    '-F',
    '/dev/null',
    '-p',
    String(o.port),
    '-i',
    o.key,
    '-o',
    'BatchMode=yes',
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'ConnectTimeout=10',
    ...(o.cert ? ['-o', `CertificateFile=${o.cert}`] : []),
    ...(o.knownHosts
      ? ['-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${o.knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null']
      : ['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null']),
    ...(o.hostAlias ? ['-o', `HostKeyAlias=${o.hostAlias}`] : []),
    `${o.user}@127.0.0.1`,
    'echo logged-in-as-$(id -un)',
  ];
  return new Promise((resolve) => {
    const child = spawn('ssh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stderr, stdout });
    });
  });
}
