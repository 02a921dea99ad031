/** ssh-keygen as the checker: user keys in a temp dir, certificates read back with -L. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyFiles {
  dir: string;
  priv: string;
  pub: string;
  pubText: string;
  privText: string;
}

export function tempDir(prefix = 'latchkey-ssh-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

let n = 0;
/** A fresh key pair from ssh-keygen (OpenSSH format, no passphrase). */
export function keygen(dir: string, type: 'rsa' | 'ecdsa' | 'ed25519' | 'dsa', bits?: number): KeyFiles {
  const priv = join(dir, `key${n++}-${type}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', 'test', '-f', priv], {
    stdio: 'pipe',
  });
  return { dir, priv, pub: `${priv}.pub`, pubText: readFileSync(`${priv}.pub`, 'utf8'), privText: readFileSync(priv, 'utf8') };
}

/** `ssh-keygen -L` of a certificate line; throws when ssh-keygen cannot read it. */
export function certInfo(cert: string): string {
  const dir = tempDir('latchkey-cert-');
  try {
    const file = join(dir, 'c-cert.pub');
    writeFileSync(file, cert);
    return execFileSync('ssh-keygen', ['-L', '-f', file], { encoding: 'utf8', stdio: 'pipe' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The signing CA line of `ssh-keygen -L` output, e.g. "ED25519-CERT SHA256:... using ssh-ed25519". */
export function field(info: string, name: string): string {
  const m = new RegExp(`^\\s*${name}:\\s*(.*)$`, 'm').exec(info);
  return m?.[1]?.trim() ?? '';
}

/** The indented lines under a heading such as "Principals:" or "Extensions:". */
export function section(info: string, name: string): string[] {
  const lines = info.split('\n');
  const at = lines.findIndex((l) => l.trim() === `${name}:` || l.trim().startsWith(`${name}: `));
  if (at < 0) return [];
  if (lines[at]!.includes('(none)')) return [];
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s{16}/.test(l)) break;
    out.push(l.trim());
  }
  return out;
}
