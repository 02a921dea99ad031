/**
 * The agent's log: one JSON line per action on its output (`renewed`, `command`, `login`,
 * `backoff`, `current`, `started`, `stopped`, …). Callers pass safe fields only (file names,
 * serials, times, error messages); as a second guard, every secret the agent has held (tokens,
 * secret ids, JWTs, private keys) is registered here and replaced by "[redacted]" should it
 * ever reach a line.
 */
export interface LogSink {
  write(line: string): unknown;
}

export class AgentLog {
  private readonly secrets = new Set<string>();

  constructor(
    private readonly out: LogSink,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers a secret so that no line ever shows it (ignores short values, which would mask words). */
  secret(value: string | undefined): void {
    const v = value?.trim();
    if (v && v.length >= 8) this.secrets.add(v);
  }

  line(event: string, fields: Record<string, unknown> = {}): void {
    let text = JSON.stringify({ time: new Date(this.now()).toISOString(), event, ...fields });
    for (const s of this.secrets) {
      const quoted = JSON.stringify(s).slice(1, -1);
      if (text.includes(quoted)) text = text.split(quoted).join('[redacted]');
    }
    this.out.write(text + '\n');
  }
}

/** The message of an error, one line, for a log field. */
export function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const one = m.split('\n')[0]!.slice(0, 300);
  return code && !one.includes(code) ? `${one} (${code})` : one;
}
