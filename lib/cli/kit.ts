/** What every command shares: its flags parsed, `-h`, the context built from flags and env. */
import { COMMON_FLAGS, parseArgs, str, UsageError, type FlagSpec, type Parsed } from './args';
import type { Command } from './command';
import { cliContext, type CliContext } from './context';
import type { Io } from './io';

export const CONNECTION_HELP = `
Connection:
  -address=URL     The service (LATCHKEY_ADDR or VAULT_ADDR; default http://127.0.0.1:8200).
  -ca-cert=FILE    A PEM root to trust for TLS (LATCHKEY_CACERT or VAULT_CACERT).`;

export const OUTPUT_HELP = `
Output:
  -format=F        table (default), json, yaml or raw (LATCHKEY_FORMAT or VAULT_FORMAT).
  -field=NAME      Print only this field's value, exactly (a string raw, anything else as JSON).`;

export const OUTPUT_FLAGS: FlagSpec = { format: 'string', field: 'string' };

export interface CommandDef {
  summary: string;
  /** The help text (usage line first); the connection flags are appended. */
  help: string;
  flags: FlagSpec;
  /** Fewest and most positional arguments (max -1: any). */
  args: [number, number];
  /** Takes arguments after `--`. */
  rest?: boolean;
}

export interface Call {
  p: Parsed;
  io: Io;
  /** The client, built on first use. */
  ctx(): CliContext;
}

export function defineCommand(def: CommandDef, body: (c: Call) => Promise<number>): Command {
  return {
    summary: def.summary,
    async run(argv, io) {
      const p = parseArgs(argv, def.flags);
      if (p.flags.h || p.flags.help) {
        io.stdout.write(`${def.help.trim()}\n${CONNECTION_HELP}\n`);
        return 0;
      }
      const [min, max] = def.args;
      if (p.args.length < min) throw new UsageError(`not enough arguments (expected ${min}, got ${p.args.length}); -h for usage`);
      if (max >= 0 && p.args.length > max)
        throw new UsageError(`too many arguments (expected at most ${max}, got ${p.args.length}); -h for usage`);
      if (p.rest.length && !def.rest) throw new UsageError('arguments after -- are not taken here; -h for usage');
      let ctx: CliContext | undefined;
      return body({
        p,
        io,
        ctx: () => (ctx ??= cliContext(io.env, { address: str(p, 'address'), caCert: str(p, 'ca-cert') })),
      });
    },
  };
}

/** A group of subcommands (`token lookup`, `kv get`). */
export function defineGroup(summary: string, subs: Record<string, Command>, usage: string): Command {
  return {
    summary,
    async run(argv, io) {
      const [name, ...rest] = argv;
      if (!name || name === '-h' || name === '-help' || name === '--help') {
        const rows = Object.entries(subs).map(([n, c]) => `    ${n.padEnd(16)} ${c.summary}`);
        io.stdout.write(`${usage}\n\nSubcommands:\n${rows.join('\n')}\n`);
        return name ? 0 : 2;
      }
      const sub = Object.hasOwn(subs, name) ? subs[name] : undefined;
      if (!sub) throw new UsageError(`unknown subcommand "${name}" (${Object.keys(subs).join(', ')})`);
      return sub.run(rest, io);
    },
  };
}

export { COMMON_FLAGS };
