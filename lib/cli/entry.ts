/** The process's entry: run the command line, flush, exit with its status. */
import { processIo } from './io';
import { runCli } from './main';

export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), processIo());
  process.exitCode = code;
  // Let stdout drain (a pipe may be slower than the process), then leave even if a socket lingers.
  process.stdout.write('', () => process.exit(code));
}
