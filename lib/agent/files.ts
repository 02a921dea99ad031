/**
 * Atomic replacement of a set of files: each new content goes to a temporary file in the target's
 * own folder (so the rename stays on one file system), with its mode set explicitly (the umask
 * does not loosen or tighten it), written and fsynced; only when every file is ready are they
 * renamed over the targets, one synchronous rename after another, and the folders fsynced. A
 * reader sees the old file or the new one, never a part of either; a failure before the renames
 * leaves the old files as they were and removes the temporary ones.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface FileWrite {
  path: string;
  content: string;
  /** e.g. 0o600 for a private key, 0o644 for a certificate. */
  mode: number;
}

export const KEY_MODE = 0o600;
export const CERT_MODE = 0o644;

function writeTemp(w: FileWrite): string {
  const tmp = join(dirname(w.path), `.${basename(w.path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // Created 0600 whatever the final mode: a key is never readable by others, even for a moment.
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    fchmodSync(fd, w.mode);
    const buf = Buffer.from(w.content, 'utf8');
    for (let off = 0; off < buf.length;) off += writeSync(fd, buf, off);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkSync(tmp);
    throw e;
  }
  closeSync(fd);
  return tmp;
}

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse to fsync a folder; the rename itself is still atomic.
  }
}

/** Writes every file or none (see the module comment). */
export function replaceFiles(writes: FileWrite[]): void {
  const temps: string[] = [];
  try {
    for (const w of writes) temps.push(writeTemp(w));
  } catch (e) {
    for (const t of temps) {
      try {
        unlinkSync(t);
      } catch {
        // already gone
      }
    }
    throw e;
  }
  writes.forEach((w, i) => renameSync(temps[i]!, w.path));
  for (const dir of new Set(writes.map((w) => dirname(w.path)))) fsyncDir(dir);
}
