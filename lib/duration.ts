/**
 * Durations as the reference server reads them: integer seconds, or a string of
 * number+unit groups ("1h30m", "90s", "48d"), or a bare number string (seconds).
 */
const UNITS: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600, d: 86400 };
const GROUP = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/gy;
const MAX_SECONDS = 100 * 365 * 86400;

/** Seconds (whole, rounded down), or undefined when `input` is not a duration. */
export function parseDuration(input: unknown): number | undefined {
  let seconds: number;
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) return undefined;
    seconds = Math.floor(input);
  } else if (typeof input === 'string') {
    const s = input.trim();
    if (s === '') return 0;
    if (/^\d+$/.test(s)) seconds = Number(s);
    else {
      GROUP.lastIndex = 0;
      let total = 0;
      let m: RegExpExecArray | null;
      let consumed = 0;
      while ((m = GROUP.exec(s)) !== null) {
        total += Number(m[1]) * (UNITS[m[2] ?? ''] ?? 0);
        consumed = GROUP.lastIndex;
      }
      if (consumed !== s.length) return undefined;
      seconds = Math.floor(total);
    }
  } else return undefined;
  return seconds <= MAX_SECONDS ? seconds : undefined;
}

/** Formats seconds the way the reference server prints durations ("1h0m0s" style). */
export function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h}h${m}m${s}s` : m ? `${m}m${s}s` : `${s}s`;
}
