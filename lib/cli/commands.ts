/**
 * The command table: a name and the module that runs it, loaded when asked for. A command
 * group (`token`, `kv`) dispatches its own subcommands. Registering one is one line here.
 */
import type { Io } from './io';

export interface Command {
  /** One line for `latchkey -h`. */
  summary: string;
  /** Runs with the arguments after the command's name; answers the exit status. */
  run(argv: string[], io: Io): Promise<number>;
}

type Loader = () => Promise<Command>;

export const COMMANDS: Record<string, Loader> = {
  read: () => import('./logical').then((m) => m.read),
  write: () => import('./logical').then((m) => m.write),
  list: () => import('./logical').then((m) => m.list),
  delete: () => import('./logical').then((m) => m.remove),
  patch: () => import('./logical').then((m) => m.patch),
  login: () => import('./login-command').then((m) => m.command),
  token: () => import('./token').then((m) => m.command),
  kv: () => import('./kv').then((m) => m.command),
  status: () => import('./status').then((m) => m.command),
  ssh: () => import('./ssh').then((m) => m.command),
  agent: () => import('../agent/main').then((m) => m.command),
};
