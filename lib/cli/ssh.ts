/**
 * `latchkey ssh -role=R USER@HOST [-- ssh args]`: the vault CLI's `ssh -mode=ca`. Signs the
 * public key at `<mount>/sign/<role>` for the principal USER (generating an ed25519 key pair
 * with ssh-keygen when the key is missing), writes the certificate beside the key
 * (`<key>-cert.pub`), then runs `ssh -i KEY -o CertificateFile=CERT USER@HOST args`, or with
 * -add-to-agent hands key and certificate to the running ssh-agent for the certificate's lifetime.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname } from 'node:path';
import sshpk from 'sshpk';
import { bool, str, UsageError } from './args';
import type { Io } from './io';
import { defineCommand } from './kit';

const HELP = `Usage: latchkey ssh [flags] -role=ROLE USER@HOST [-- ssh args]

Signs your SSH public key with the SSH CA and logs in with the certificate.

  -mount=M                The SSH engine's mount (default ssh; -mount-point too).
  -role=R                 The role that signs (required).
  -mode=ca                The only mode (signed certificates).
  -public-key-path=F      The key to sign (default ~/.ssh/id_ed25519.pub; made when missing).
  -private-key-path=F     Its private half (default: the public path without .pub).
  -valid-principals=P     The principals asked (default USER).
  -no-exec                Stop after writing the certificate.
  -add-to-agent           Add key and certificate to the running ssh-agent (SSH_AUTH_SOCK)
                          for the certificate's lifetime, then run ssh through the agent.
  -ssh-executable=F       The ssh to run (default ssh).`;

/** Runs a program, answers its exit status; its output goes where ours goes. */
function run(io: Io, file: string, args: string[], inherit: boolean): Promise<{ code: number; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: inherit ? 'inherit' : ['ignore', 'pipe', 'pipe'], env: io.env as NodeJS.ProcessEnv });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => io.stdout.write(d));
    child.on('error', (e) => reject(new Error(`cannot run ${file}: ${e.message}`)));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), err }));
  });
}

const expand = (p: string, io: Io) => (p.startsWith('~/') ? `${io.env.HOME || homedir()}${p.slice(1)}` : p);

/** The key pair: the given one, its public half derived, or a new ed25519 pair where it should be. */
function keyPair(io: Io, pubPath: string, privPath: string): void {
  if (existsSync(pubPath)) return;
  try {
    if (existsSync(privPath)) {
      writeFileSync(pubPath, execFileSync('ssh-keygen', ['-y', '-f', privPath], { stdio: ['ignore', 'pipe', 'pipe'] }));
      return;
    }
    mkdirSync(dirname(privPath), { recursive: true, mode: 0o700 });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'latchkey', '-f', privPath], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = (e as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`ssh-keygen failed: ${err || (e as Error).message}`);
  }
  if (`${privPath}.pub` !== pubPath) writeFileSync(pubPath, readFileSync(`${privPath}.pub`));
  io.stderr.write(`Generated a new key pair: ${privPath}\n`);
}

/** Seconds left on an OpenSSH certificate. */
function secondsLeft(certText: string): number {
  const cert = sshpk.parseCertificate(Buffer.from(certText), 'openssh');
  return Math.max(1, Math.floor((cert.validUntil.getTime() - Date.now()) / 1000));
}

export const command = defineCommand(
  {
    summary: 'Sign an SSH key and log in with the certificate',
    help: HELP,
    flags: {
      mount: 'string',
      'mount-point': 'string',
      role: 'string',
      mode: 'string',
      'public-key-path': 'string',
      'private-key-path': 'string',
      'valid-principals': 'string',
      'no-exec': 'boolean',
      'add-to-agent': 'boolean',
      'ssh-executable': 'string',
    },
    args: [1, 1],
    rest: true,
  },
  async (c) => {
    const { io, p } = c;
    const mode = str(p, 'mode', 'ca');
    if (mode !== 'ca') throw new UsageError(`-mode=${mode} is not served: only -mode=ca (signed certificates)`);
    const role = str(p, 'role');
    if (!role) throw new UsageError('-role is required');
    const target = p.args[0]!;
    const at = target.lastIndexOf('@');
    const user = at > 0 ? target.slice(0, at) : io.env.USER || io.env.LOGNAME || '';
    const host = at >= 0 ? target.slice(at + 1) : target;
    if (!user || !host) throw new UsageError(`expected USER@HOST, got "${target}"`);
    const mount = (str(p, 'mount') || str(p, 'mount-point', 'ssh')).replace(/^\/+|\/+$/g, '');
    const pubPath = expand(str(p, 'public-key-path', '~/.ssh/id_ed25519.pub'), io);
    const privPath = expand(str(p, 'private-key-path') || pubPath.replace(/\.pub$/, ''), io);
    if (privPath === pubPath) throw new UsageError('-private-key-path is needed when the public key path does not end in .pub');
    keyPair(io, pubPath, privPath);
    const e = await c.ctx().client.write(`${mount}/sign/${role}`, {
      public_key: readFileSync(pubPath, 'utf8').trim(),
      valid_principals: str(p, 'valid-principals', user),
      cert_type: 'user',
    });
    const signed = e?.data?.signed_key as string | undefined;
    if (!signed) throw new Error(`${mount}/sign/${role} answered no signed_key`);
    const certPath = `${privPath}-cert.pub`;
    writeFileSync(certPath, signed.endsWith('\n') ? signed : `${signed}\n`, { mode: 0o644 });
    io.stderr.write(`Wrote the certificate to ${certPath}\n`);
    const ssh = str(p, 'ssh-executable', 'ssh');
    if (bool(p, 'add-to-agent')) {
      if (!io.env.SSH_AUTH_SOCK) throw new UsageError('-add-to-agent needs a running ssh-agent (SSH_AUTH_SOCK is not set)');
      const ttl = secondsLeft(signed);
      const r = await run(io, 'ssh-add', ['-t', String(ttl), privPath], false);
      if (r.code !== 0) throw new Error(`ssh-add failed: ${r.err.trim()}`);
      io.stderr.write(`Added ${privPath} and its certificate to the agent for ${ttl}s\n`);
      if (bool(p, 'no-exec')) return 0;
      return (await run(io, ssh, [`${user}@${host}`, ...p.rest], true)).code;
    }
    if (bool(p, 'no-exec')) return 0;
    return (await run(io, ssh, ['-i', privPath, '-o', `CertificateFile=${certPath}`, `${user}@${host}`, ...p.rest], true)).code;
  },
);
