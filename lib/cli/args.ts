/**
 * The vault CLI's argument grammar: flags with one or two dashes, `-name=value` or `-name value`
 * (booleans take no separate value: `-no-store`, `-no-store=false`), positional arguments, and
 * everything after `--` passed through untouched. Flags may come before or after positionals.
 */

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `strings`: a flag that may be given several times (`-policy=a -policy=b`). */
export type FlagKind = 'string' | 'boolean' | 'strings';

export interface FlagSpec {
  [name: string]: FlagKind;
}

export interface Parsed {
  flags: Record<string, string | boolean | string[]>;
  args: string[];
  /** What followed `--`. */
  rest: string[];
}

/** Flags every command takes. */
export const COMMON_FLAGS: FlagSpec = {
  h: 'boolean',
  help: 'boolean',
  address: 'string',
  'ca-cert': 'string',
};

const BOOL_TEXT: Record<string, boolean> = { true: true, '1': true, t: true, false: false, '0': false, f: false };

export function parseArgs(argv: string[], spec: FlagSpec): Parsed {
  const all = { ...COMMON_FLAGS, ...spec };
  const flags: Record<string, string | boolean | string[]> = {};
  const args: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return { flags, args, rest: argv.slice(i + 1) };
    if (!a.startsWith('-') || a === '-') {
      args.push(a);
      continue;
    }
    const body = a.replace(/^--?/, '');
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const kind = all[name];
    if (!kind) throw new UsageError(`flag provided but not defined: -${name}`);
    if (kind === 'boolean') {
      if (eq < 0) flags[name] = true;
      else {
        const v = BOOL_TEXT[body.slice(eq + 1).toLowerCase()];
        if (v === undefined) throw new UsageError(`invalid boolean value for -${name}: ${body.slice(eq + 1)}`);
        flags[name] = v;
      }
      continue;
    }
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i]!;
    else throw new UsageError(`flag needs an argument: -${name}`);
    if (kind === 'strings') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  return { flags, args, rest: [] };
}

/** A string flag's value, or the default. */
export const str = (p: Parsed, name: string, dflt = ''): string => {
  const v = p.flags[name];
  return typeof v === 'string' ? v : dflt;
};

export const bool = (p: Parsed, name: string): boolean => p.flags[name] === true;

/** A repeatable flag's values, each also split at commas. */
export const strs = (p: Parsed, name: string): string[] => {
  const v = p.flags[name];
  return (Array.isArray(v) ? v : typeof v === 'string' ? [v] : [])
    .flatMap((x) => x.split(','))
    .map((x) => x.trim())
    .filter(Boolean);
};
