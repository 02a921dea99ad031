/** Running an install script on a remote host over SSH (ssh2), as the role's admin user. */
import type { Client } from 'ssh2';
import { InvalidInput } from '../domain-errors';
import { BUILT_IN_INSTALL_SCRIPT } from './install-script';
import { loadSsh2 } from './ssh2-lazy';

export interface RemoteHost {
  host: string;
  port: number;
  adminUser: string;
  adminKey: string;
}

export interface ScriptRun {
  op: 'install' | 'uninstall';
  /** The authorized_keys line (options and public key). */
  keyLine: string;
  /** The target user; validated beforehand (letters, digits, `_.-`). */
  username: string;
  /** The role's script; empty for the built-in one. */
  script: string;
}

/** A failure before the script ran (nothing was installed) or of the script itself. */
export class RemoteError extends InvalidInput {
  constructor(
    message: string,
    readonly stage: 'connect' | 'script',
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

const TIMEOUT_MS = 20_000;
const b64 = (s: string) => Buffer.from(s).toString('base64');

/**
 * One shell command that writes the key and script to a private temp dir and runs the script
 * there with the reference interface, `install|uninstall <key file> <authorized_keys path>`: the
 * key file name is relative (the script runs in that dir, as the reference's does in the admin's
 * home), the path is the user's home on the host (getent; else /home/<user>) + .ssh/authorized_keys.
 * The built-in script also gets the user, to own what it creates.
 */
export function scriptCommand(run: ScriptRun): string {
  const user = `'${run.username}'`;
  return [
    'umask 077',
    'd=$(mktemp -d)',
    `trap 'rm -rf "$d"' EXIT`,
    `echo ${b64(run.keyLine + '\n')} | base64 -d > "$d/key.pub"`,
    `echo ${b64(run.script || BUILT_IN_INSTALL_SCRIPT)} | base64 -d > "$d/install.sh"`,
    `h=$(getent passwd ${user} 2>/dev/null | cut -d: -f6)`,
    `[ -n "$h" ] || h=/home/${user}`,
    `if command -v bash >/dev/null 2>&1; then sh=bash; else sh=sh; fi`,
    `cd "$d" && "$sh" ./install.sh ${run.op} key.pub "$h/.ssh/authorized_keys"${run.script ? '' : ` ${user}`}`,
  ].join('; ');
}

export async function runScript(host: RemoteHost, run: ScriptRun): Promise<void> {
  const ssh2 = await loadSsh2();
  return new Promise((resolve, reject) => {
    const conn = new ssh2.Client();
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      conn.end();
      if (err) reject(err);
      else resolve();
    };
    const where = `${host.adminUser}@${host.host}:${host.port}`;
    const timer = setTimeout(() => finish(new RemoteError(`timed out running the install script on ${where}`, 'script')), TIMEOUT_MS);
    conn.on('error', (e) => finish(new RemoteError(`failed to connect to ${where}: ${e.message}`, 'connect', e)));
    conn.on('ready', () => exec(conn, run, where, finish));
    try {
      conn.connect({ host: host.host, port: host.port, username: host.adminUser, privateKey: host.adminKey, readyTimeout: TIMEOUT_MS });
    } catch (e) {
      finish(new RemoteError(`failed to connect to ${where}: ${e instanceof Error ? e.message : 'bad settings'}`, 'connect', e));
    }
  });
}

function exec(conn: Client, run: ScriptRun, where: string, finish: (err?: Error) => void): void {
  conn.exec(scriptCommand(run), (err, stream) => {
    if (err) return finish(new RemoteError(`failed to run the install script on ${where}: ${err.message}`, 'script', err));
    let stderr = '';
    stream.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString('utf8');
    });
    stream.on('data', () => undefined);
    stream.on('close', (code: number | null) => {
      if (code === 0) return finish();
      const detail = stderr.trim().slice(0, 300);
      finish(new RemoteError(`the install script failed on ${where} (exit ${code ?? 'signal'})${detail ? `: ${detail}` : ''}`, 'script'));
    });
  });
}
