/**
 * The command table: a name and the module that runs it, loaded when asked for. A command
 * group (`token`, `kv`) dispatches its own subcommands. Registering one is one line here.
 */
import type { Command } from './command';

/** Kept for imports of old; a command module imports the type from ./command (no import circle through this table). */
export type { Command };

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
