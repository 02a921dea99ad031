/**
 * The one metrics registry of a process: counters and histograms, each with the label names it
 * declares and a bounded number of label sets (series). Label values are bounded by the callers
 * (a function's name, a mount, a path template, an operation, a status class), never a token,
 * a name, a serial or a path as asked; past `maxSeries` a metric folds new label sets into one
 * series whose every label is `_overflow`, so a bug can never grow memory or the exposition.
 *
 * Exposition: `prometheusText()` in the Prometheus text format (version 0.0.4) and `json()` in the
 * shape OpenBao's and Vault's sys/metrics answers by default (Timestamp, Gauges, Points,
 * Counters, Samples).
 */

export type Labels = Record<string, string>;

/** Whether metrics record anything: METRICS=off (lib/config.ts) turns every metric of the process into a no-op. */
let recording = true;

export function setRecording(on: boolean): void {
  recording = on;
}

/** The label value a metric records instead of a new label set once it has `maxSeries` of them. */
export const OVERFLOW = '_overflow';

/** Seconds: Prometheus' default buckets, which fit request latencies from 5 ms to 10 s. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** A label set's key: its values in declared order, each prefixed by its length (no separator can be forged). */
function seriesKey(values: readonly string[]): string {
  let key = '';
  for (const v of values) key += `${v.length}:${v}`;
  return key;
}

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  min: number;
  max: number;
  sumSquares: number;
  /** Histograms: observations at or under each bucket's bound (cumulative), then +Inf is `count`. */
  buckets?: number[];
}

/** CloudWatch's name for a metric in EMF (lib/metrics/emf.ts), its unit, and which labels are its dimensions. */
export interface CloudWatchMetric {
  name: string;
  unit: 'Count' | 'Seconds' | 'Milliseconds' | 'None';
  /**
   * Labels that become CloudWatch dimensions (each a bounded value: a mount, an operation, a
   * status class, a method; never a name, a token or a serial), beside the function's own.
   */
  dimensions: readonly string[];
}

export interface MetricOptions {
  name: string;
  help: string;
  labels?: readonly string[];
  maxSeries?: number;
  /** How the metric is published on Lambda (EMF); absent: Prometheus and JSON only. */
  cloudwatch?: CloudWatchMetric;
}

/** What a metric records, as a listener sees it (lib/metrics/emf.ts buffers these per invocation). */
export interface Recorded {
  metric: Metric;
  labels: Labels;
  value: number;
}

export abstract class Metric {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly cloudwatch: CloudWatchMetric | undefined;
  /** Called with every recorded value (set by the registry that holds the metric). */
  listener: ((r: Recorded) => void) | undefined;
  protected readonly maxSeries: number;
  protected readonly series = new Map<string, Series>();

  constructor(o: MetricOptions) {
    if (!NAME.test(o.name)) throw new Error(`invalid metric name "${o.name}"`);
    for (const l of o.labels ?? []) {
      if (!LABEL.test(l) || l.startsWith('__') || l === 'le' || l === 'quantile') throw new Error(`invalid label name "${l}" on ${o.name}`);
    }
    this.name = o.name;
    this.help = o.help;
    this.labelNames = [...(o.labels ?? [])];
    this.maxSeries = o.maxSeries ?? 1000;
    for (const d of o.cloudwatch?.dimensions ?? []) {
      if (!this.labelNames.includes(d)) throw new Error(`metric ${o.name}: dimension "${d}" is not one of its labels`);
    }
    this.cloudwatch = o.cloudwatch;
  }

  abstract get type(): 'counter' | 'histogram' | 'gauge';

  /** The series for these labels (a missing one is ''; an undeclared name throws, checked when a label set is first seen), created on first use. */
  protected seriesFor(labels: Labels): Series {
    // The key is built in one pass (no array of values): this runs on every recorded value.
    let key = '';
    for (const n of this.labelNames) {
      const v = labels[n] ?? '';
      key += `${v.length}:${v}`;
    }
    let s = this.series.get(key);
    if (s) return s;
    const values = this.labelNames.map((n) => labels[n] ?? '');
    for (const k of Object.keys(labels)) {
      if (!this.labelNames.includes(k)) throw new Error(`metric ${this.name} has no label "${k}"`);
    }
    if (this.series.size >= this.maxSeries) {
      const overflowValues = this.labelNames.map(() => OVERFLOW);
      const overflowKey = seriesKey(overflowValues);
      s = this.series.get(overflowKey);
      if (s) return s;
      return this.create(overflowKey, overflowValues);
    }
    return this.create(key, values);
  }

  private create(key: string, values: string[]): Series {
    const s: Series = {
      labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]!])),
      count: 0,
      sum: 0,
      min: Infinity,
      max: -Infinity,
      sumSquares: 0,
      ...(this.type === 'histogram' ? { buckets: this.bucketBounds().map(() => 0) } : {}),
    };
    this.series.set(key, s);
    return s;
  }

  protected bucketBounds(): readonly number[] {
    return [];
  }

  protected record(s: Series, value: number, labels?: Labels): void {
    if (this.listener && labels) this.listener({ metric: this, labels, value });
    s.count += 1;
    s.sum += value;
    s.sumSquares += value * value;
    if (value < s.min) s.min = value;
    if (value > s.max) s.max = value;
  }

  /** Every series, in the order first seen. */
  all(): readonly Series[] {
    return [...this.series.values()];
  }
}

/** A count that only goes up, by whole steps. */
export class Counter extends Metric {
  get type() {
    return 'counter' as const;
  }

  inc(labels: Labels = {}, by = 1): void {
    if (!recording) return;
    if (!Number.isFinite(by) || by < 0) throw new Error(`counter ${this.name} cannot go up by ${by}`);
    this.record(this.seriesFor(labels), by, labels);
  }

  /** The current total for exactly these labels (0 when never incremented). */
  value(labels: Labels = {}): number {
    return this.series.get(seriesKey(this.labelNames.map((n) => labels[n] ?? '')))?.sum ?? 0;
  }

  /**
   * This counter for one label set known in advance (a store operation and its result): the
   * series is looked up once, on first use, so a hot path records with no label key to build.
   */
  bind(labels: Labels): BoundCounter {
    const fixed = { ...labels };
    let s: Series | undefined;
    return {
      inc: (by = 1) => {
        if (!recording) return;
        if (!Number.isFinite(by) || by < 0) throw new Error(`counter ${this.name} cannot go up by ${by}`);
        this.record((s ??= this.seriesFor(fixed)), by, fixed);
      },
    };
  }
}

export interface BoundCounter {
  inc(by?: number): void;
}

export interface BoundHistogram {
  observe(value: number): void;
}

/** Observations counted into buckets by upper bound, with their count and sum. */
export class Histogram extends Metric {
  readonly buckets: readonly number[];

  constructor(o: MetricOptions & { buckets?: readonly number[] }) {
    super(o);
    const b = [...(o.buckets ?? DEFAULT_BUCKETS)];
    if (b.length === 0 || b.some((x, i) => !Number.isFinite(x) || (i > 0 && x <= b[i - 1]!))) {
      throw new Error(`histogram ${o.name}: buckets must be finite and strictly increasing`);
    }
    this.buckets = b;
  }

  get type() {
    return 'histogram' as const;
  }

  protected override bucketBounds(): readonly number[] {
    return this.buckets;
  }

  observe(labels: Labels, value: number): void {
    if (!recording || !Number.isFinite(value)) return;
    this.observeIn(this.seriesFor(labels), value, labels);
  }

  /** This histogram for one label set known in advance, looked up once (see Counter.bind). */
  bind(labels: Labels): BoundHistogram {
    const fixed = { ...labels };
    let s: Series | undefined;
    return {
      observe: (value) => {
        if (!recording || !Number.isFinite(value)) return;
        this.observeIn((s ??= this.seriesFor(fixed)), value, fixed);
      },
    };
  }

  private observeIn(s: Series, value: number, labels: Labels): void {
    this.record(s, value, labels);
    const buckets = s.buckets!;
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) buckets[i]! += 1;
  }

  /** Count and sum for exactly these labels. */
  value(labels: Labels = {}): { count: number; sum: number } {
    const s = this.series.get(seriesKey(this.labelNames.map((n) => labels[n] ?? '')));
    return { count: s?.count ?? 0, sum: s?.sum ?? 0 };
  }
}

/** A value that is set, not added to (e.g. how many CRLs are past their next update). */
export class Gauge extends Metric {
  get type() {
    return 'gauge' as const;
  }

  set(labels: Labels, value: number): void {
    if (!recording || !Number.isFinite(value)) return;
    const s = this.seriesFor(labels);
    if (this.listener) this.listener({ metric: this, labels, value });
    s.count = 1;
    s.sum = value;
    s.min = value;
    s.max = value;
    s.sumSquares = value * value;
  }

  value(labels: Labels = {}): number | undefined {
    return this.series.get(seriesKey(this.labelNames.map((n) => labels[n] ?? '')))?.sum;
  }
}

/** A label value in the text format: backslash, double quote and line feed escaped. */
export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** HELP text in the text format: backslash and line feed escaped. */
function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

/** A sample value as the text format writes it (Go's float forms for the specials). */
function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function labelText(labels: Labels, extra?: [string, string]): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`);
  if (extra) pairs.push(`${extra[0]}="${escapeLabelValue(extra[1])}"`);
  return pairs.length ? `{${pairs.join(',')}}` : '';
}

/** One entry of OpenBao's JSON answer (go-metrics' in-memory sink display). */
interface JsonSummary {
  Name: string;
  Count: number;
  Rate: number;
  Sum: number;
  Min: number;
  Max: number;
  Mean: number;
  Stddev: number;
  Labels: Labels;
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();
  private readonly started: number;

  constructor(private readonly now: () => number = Date.now) {
    this.started = now();
  }

  counter(o: MetricOptions): Counter {
    return this.add(new Counter(o));
  }

  histogram(o: MetricOptions & { buckets?: readonly number[] }): Histogram {
    return this.add(new Histogram(o));
  }

  gauge(o: MetricOptions): Gauge {
    return this.add(new Gauge(o));
  }

  /** Every metric registered, by name. */
  list(): readonly Metric[] {
    return [...this.metrics.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Sends every value recorded from now on (by any metric, present or future) to `listener`; undefined stops it. */
  listen(listener: ((r: Recorded) => void) | undefined): void {
    this.listener = listener;
    for (const m of this.metrics.values()) m.listener = listener;
  }

  private listener: ((r: Recorded) => void) | undefined;

  private add<M extends Metric>(m: M): M {
    if (this.metrics.has(m.name)) throw new Error(`metric ${m.name} is registered twice`);
    m.listener = this.listener;
    this.metrics.set(m.name, m);
    return m;
  }

  /** The Prometheus text exposition format (text/plain; version=0.0.4), metrics by name. */
  prometheusText(): string {
    const lines: string[] = [];
    for (const m of [...this.metrics.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      lines.push(`# HELP ${m.name} ${escapeHelp(m.help)}`, `# TYPE ${m.name} ${m.type}`);
      for (const s of m.all()) {
        if (m instanceof Histogram) {
          m.buckets.forEach((bound, i) =>
            lines.push(`${m.name}_bucket${labelText(s.labels, ['le', formatValue(bound)])} ${s.buckets![i]}`),
          );
          lines.push(`${m.name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.count}`);
          lines.push(`${m.name}_sum${labelText(s.labels)} ${formatValue(s.sum)}`);
          lines.push(`${m.name}_count${labelText(s.labels)} ${s.count}`);
        } else {
          lines.push(`${m.name}${labelText(s.labels)} ${formatValue(s.sum)}`);
        }
      }
    }
    return lines.length ? lines.join('\n') + '\n' : '';
  }

  /**
   * OpenBao's default JSON: gauges, counters and histograms (as Samples) summarised, each
   * label set its own entry; Rate is the total per second since the registry started.
   */
  json(): {
    Timestamp: string;
    Gauges: { Name: string; Value: number; Labels: Labels }[];
    Points: unknown[];
    Counters: JsonSummary[];
    Samples: JsonSummary[];
  } {
    const now = this.now();
    const seconds = Math.max((now - this.started) / 1000, 1);
    const counters: JsonSummary[] = [];
    const samples: JsonSummary[] = [];
    const gauges: { Name: string; Value: number; Labels: Labels }[] = [];
    for (const m of [...this.metrics.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      for (const s of m.all()) {
        if (m instanceof Gauge) {
          gauges.push({ Name: m.name, Value: s.sum, Labels: { ...s.labels } });
          continue;
        }
        const mean = s.count ? s.sum / s.count : 0;
        const variance = s.count > 1 ? Math.max((s.sumSquares - s.count * mean * mean) / (s.count - 1), 0) : 0;
        const entry: JsonSummary = {
          Name: m.name,
          Count: s.count,
          Rate: s.sum / seconds,
          Sum: s.sum,
          Min: s.count ? s.min : 0,
          Max: s.count ? s.max : 0,
          Mean: mean,
          Stddev: Math.sqrt(variance),
          Labels: { ...s.labels },
        };
        (m instanceof Histogram ? samples : counters).push(entry);
      }
    }
    return { Timestamp: new Date(now).toISOString(), Gauges: gauges, Points: [], Counters: counters, Samples: samples };
  }
}

/** This process's registry: what sys/metrics shows. */
export const registry = new Registry();
