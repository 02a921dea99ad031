/**
 * `latchkey COMMAND [flags] [args]`: finds the command in the table and runs it. Exit status 0
 * on success, 1 on an error from the service (its messages on stderr, one line each) or on
 * reaching it, 2 on a usage error (one line).
 */
import { ClientError } from '../client/client';
import { UsageError } from './args';
import { COMMANDS } from './commands';
import type { Io } from './io';

const USAGE = `Usage: latchkey <command> [args]

Commands:
`;

async function help(io: Io): Promise<void> {
  const rows: string[] = [];
  for (const [name, load] of Object.entries(COMMANDS)) rows.push(`    ${name.padEnd(10)} ${(await load()).summary}`);
  io.stdout.write(`${USAGE}${rows.join('\n')}\n\nEvery command takes -h for its flags.\n`);
}

/** One line per message, never a stack. */
export function reportError(io: Io, e: unknown): number {
  if (e instanceof UsageError) {
    io.stderr.write(`${e.message.split('\n')[0]}\n`);
    return 2;
  }
  if (e instanceof ClientError) {
    const lines = e.errors.length ? e.errors : [`${e.method} ${e.path}: status ${e.status}`];
    io.stderr.write(lines.map((l) => `Error: ${l.replace(/\s*\n\s*/g, ' ')}\n`).join(''));
    return 1;
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.stderr.write(`Error: ${msg.replace(/\s*\n\s*/g, ' ')}\n`);
  return 1;
}

export async function runCli(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '-help' || name === '--help' || name === 'help') {
    await help(io);
    return name ? 0 : 2;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    io.stderr.write(`unknown command "${name}" (latchkey -h lists the commands)\n`);
    return 2;
  }
  try {
    return await (await load()).run(rest, io);
  } catch (e) {
    return reportError(io, e);
  }
}
