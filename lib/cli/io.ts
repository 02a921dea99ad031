/** What a command reads and writes: the process's streams and environment, or a test's. */
import type { Readable, Writable } from 'node:stream';

export interface Io {
  stdout: Writable & { isTTY?: boolean };
  stderr: Writable;
  stdin: Readable;
  env: Record<string, string | undefined>;
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** All of stdin as text. */
export async function readStdin(io: Io): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of io.stdin) parts.push(Buffer.isBuffer(c) ? c : Buffer.from(String(c)));
  return Buffer.concat(parts).toString('utf8');
}

export const out = (io: Io, s: string) => io.stdout.write(s);
export const line = (io: Io, s: string) => io.stdout.write(`${s}\n`);
