/** bench/round-trips.ts's figures as a table and as a call-by-call trace per request. */
/** Auth cache off or on on a warm instance, or the first request of a new instance. */
export type Mode = 'off' | 'on' | 'cold';

/** One call as the trace shows it: times from the handler's start, ms. */
export interface TracedCall {
  step: number;
  op: string;
  keys: string[];
  condition?: string;
  startMs: number;
  endMs: number;
  /** Sent with another call still in flight (its step has more than one call). */
  overlapped: boolean;
  /** Sent after the handler had returned (work left behind; Lambda freezes it until the next request). */
  afterResponse: boolean;
}

export interface ModeFigures {
  mode: Mode;
  run: number;
  n: number;
  medianMs: number;
  /** Round trips of the most common shape, and the median over every request. */
  roundTrips: number;
  medianRoundTrips: number;
  calls: Record<string, number>;
  /** Each shape (steps of operations) and how many requests had it, most common first. */
  shapes: { shape: string; count: number }[];
  /** A request of the most common shape, call by call: the one nearest that shape's median latency. */
  trace: TracedCall[];
}

export interface RequestFigures {
  request: string;
  fn: string;
  target: { off: number; on: number };
  figures: ModeFigures[];
  met: boolean;
}

export interface RoundTripsResult {
  node: string;
  cpus: string;
  delayMs: number;
  n: number;
  coldN: number;
  runs: number;
  requests: RequestFigures[];
}

const SHORT: Record<string, string> = { GetItem: 'Get', UpdateItem: 'Update', PutItem: 'Put', DeleteItem: 'Delete' };
const short = (op: string) => SHORT[op] ?? op.replace(/Items?$/, '');

const callsText = (calls: Record<string, number>) =>
  Object.entries(calls)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([op, n]) => `${n} ${short(op)}`)
    .join(', ') || 'none';

const byMode = (r: RequestFigures, mode: Mode) => r.figures.filter((f) => f.mode === mode);
const list = (fs: ModeFigures[], pick: (f: ModeFigures) => number | string) => fs.map(pick).join(',');

function row(r: RequestFigures): string[] {
  const off = byMode(r, 'off');
  const on = byMode(r, 'on');
  const cold = byMode(r, 'cold');
  const sameCalls = (fs: ModeFigures[]) => [...new Set(fs.map((f) => callsText(f.calls)))].join(' | ');
  return [
    r.request,
    r.fn,
    sameCalls(off),
    sameCalls(on),
    `${list(off, (f) => f.roundTrips)} / ${list(on, (f) => f.roundTrips)}`,
    `≤${r.target.off} / ≤${r.target.on}`,
    r.met ? 'yes' : 'NO',
    `${list(off, (f) => f.medianMs)} / ${list(on, (f) => f.medianMs)}`,
    cold.length ? `${list(cold, (f) => f.roundTrips)} (${sameCalls(cold)}), ${list(cold, (f) => f.medianMs)} ms` : '-',
  ];
}

export function formatTable(result: RoundTripsResult): string {
  const head = [
    'request',
    'function',
    'calls, auth cache off',
    'calls, on',
    'round trips off / on',
    'target',
    'met',
    'median ms off / on',
    'new instance: round trips (calls), ms',
  ];
  const rows = result.requests.map(row);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((x) => x[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    `round-trips bench: node ${result.node}, ${result.cpus}; every DynamoDB call held ${result.delayMs} ms; ` +
      `N=${result.n} per request and mode after a warm-up, ${result.coldN} new instances per request; ${result.runs} run(s) (figures per run, comma-separated)`,
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}

function callLine(c: TracedCall, first: boolean): string {
  const mark = c.overlapped ? (first ? '┬' : '├') : ' ';
  const when = `${c.startMs.toFixed(1)}–${c.endMs.toFixed(1)} ms`;
  const notes = [c.condition ? `if ${c.condition}` : '', c.afterResponse ? 'AFTER THE RESPONSE' : ''].filter(Boolean).join('; ');
  const keys = c.keys.length <= 1 ? (c.keys[0] ?? '') : `${c.keys.length} items: ${c.keys.join(' ; ')}`;
  return `  ${first ? String(c.step).padStart(2) : '  '} ${mark} ${when.padEnd(16)} ${c.op.padEnd(14)} ${keys}${notes ? `   (${notes})` : ''}`;
}

const MODE_TEXT: Record<Mode, string> = { off: 'auth cache off', on: 'auth cache on', cold: 'new instance (first request)' };

function modeTrace(r: RequestFigures, f: ModeFigures): string[] {
  const head = `${r.request} [${r.fn}], ${MODE_TEXT[f.mode]}, run ${f.run}: ${f.roundTrips} sequential round trip${f.roundTrips === 1 ? '' : 's'} (median over all ${f.medianRoundTrips}), ${f.trace.length} calls, median ${f.medianMs} ms; this shape in ${f.shapes[0]!.count}/${f.n} requests`;
  const others = f.shapes.slice(1).map((s) => `    other shape, ${s.count}/${f.n}: ${s.shape}`);
  const calls = f.trace.map((c, i) => callLine(c, i === 0 || f.trace[i - 1]!.step !== c.step));
  return [head, ...calls, ...others];
}

/** Every request's typical calls in order, step by step; calls of one step (┬ ├) were in flight together. */
export function formatTrace(result: RoundTripsResult): string {
  const blocks = result.requests.flatMap((r) => r.figures.filter((f) => f.run === 1).map((f) => modeTrace(r, f).join('\n')));
  return [
    'trace: step, time from the handler call, operation, key (pk | sk; a query: its key condition), condition; ┬├ = one step of overlapping calls',
    ...blocks,
  ].join('\n\n');
}
