/** A command: what `latchkey -h` says of it and how it runs. Each one in the table (commands.ts) is one. */
import type { Io } from './io';

export interface Command {
  /** One line for `latchkey -h`. */
  summary: string;
  /** Runs with the arguments after the command's name; answers the exit status. */
  run(argv: string[], io: Io): Promise<number>;
}
