/**
 * CloudWatch Embedded Metric Format (EMF) on Lambda: the registry's listener buffers, per
 * invocation, every value recorded by a metric that declares `cloudwatch` metadata, and `flush()`
 * writes them to standard output as EMF documents, one JSON line each, which CloudWatch Logs turns
 * into metrics in the namespace `Latchkey`. No SDK and no network on the request path.
 *
 * A document holds the values of one group (the same CloudWatch dimension values): counters as the
 * invocation's sum, gauges as the last value set, histograms as the array of observed values. Its
 * dimension sets are `["function", ...dims]` and `[]`, the service-wide rollup the alarms watch (the
 * specification allows an empty DimensionSet). Only declared dimensions reach a document: a label
 * that is not one (a path, an issuer, a role) is dropped, so names, tokens and serials never do.
 *
 * Limits from the specification: at most 100 metrics per document and 100 values per array (a
 * group past either is split into more documents), at most 30 dimension keys per set (a metric
 * declaring more is refused once, with a log line, rather than emitting an invalid document).
 */
import { logError } from '../log';
import { registry as processRegistry, type CloudWatchMetric, type Metric, type Recorded, type Registry } from './registry';

export const NAMESPACE = 'Latchkey';
/** The specification's limits: MetricDefinitions per directive, values per array, keys per DimensionSet. */
export const MAX_METRICS = 100;
export const MAX_VALUES = 100;
export const MAX_DIMENSIONS = 30;
/** CloudWatch refuses an empty dimension value: a label recorded empty (a request no mount took) is published as this. */
export const EMPTY_DIMENSION = 'none';
/** The key of the function's short name on every document (its first dimension). */
const FUNCTION = 'function';

export interface EmfDocument {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: CloudWatchMetric['unit'] }[] }[];
  };
  [member: string]: unknown;
}

interface Entry {
  name: string;
  unit: CloudWatchMetric['unit'];
  kind: Metric['type'];
  sum: number;
  last: number;
  values: number[];
}

interface Group {
  dimensions: [string, string][];
  entries: Map<string, Entry>;
}

export interface EmfOptions {
  /** The function's short name (`sys`, `pki`, `sweeper`, …), the `function` dimension of every document. */
  functionName: string;
  registry?: Registry;
  /** Where a document's line goes; standard output by default. */
  write?: (line: string) => void;
  now?: () => number;
  /** Values buffered before a flush happens mid-invocation (a long tidy records many store calls). */
  maxBuffered?: number;
}

/** Why a metric's CloudWatch metadata cannot make a valid document, or undefined when it can. */
export function unusable(metric: Metric): string | undefined {
  const cw = metric.cloudwatch;
  if (!cw) return 'no cloudwatch metadata';
  if (cw.dimensions.length + 1 > MAX_DIMENSIONS) return `more than ${MAX_DIMENSIONS - 1} dimensions beside the function`;
  const reserved = [FUNCTION, '_aws'];
  if (cw.dimensions.some((d) => reserved.includes(d))) return `a dimension named ${reserved.join(' or ')}`;
  if (reserved.includes(cw.name) || cw.dimensions.includes(cw.name)) return 'a name that is also a dimension';
  return undefined;
}

/** A group's key: its dimension names and values, each length-prefixed (no separator can be forged). */
function groupKey(dimensions: [string, string][]): string {
  let key = '';
  for (const [n, v] of dimensions) key += `${n.length}:${n}${v.length}:${v}`;
  return key;
}

/** The declared dimensions of a recorded value, and only those (bounded values; empty as EMPTY_DIMENSION). */
function dimensionsOf(cw: CloudWatchMetric, labels: Recorded['labels']): [string, string][] {
  return cw.dimensions.map((d) => [d, (labels[d] ?? '').slice(0, 1024) || EMPTY_DIMENSION]);
}

/** A metric's buffered value as pieces, one per document: one number, or arrays of at most MAX_VALUES. */
function pieces(e: Entry): (number | number[])[] {
  if (e.kind === 'counter') return [e.sum];
  if (e.kind === 'gauge') return [e.last];
  const out: number[][] = [];
  for (let i = 0; i < e.values.length; i += MAX_VALUES) out.push(e.values.slice(i, i + MAX_VALUES));
  return out;
}

/**
 * A group's documents: each metric's pieces go to the first document that has neither that metric
 * nor MAX_METRICS metrics yet, so a document never names a metric twice nor more than 100.
 */
function groupDocuments(group: Group, functionName: string, timestamp: number): EmfDocument[] {
  const names = group.dimensions.map(([n]) => n);
  if (names.length + 1 > MAX_DIMENSIONS) throw new Error(`EMF: a dimension set of more than ${MAX_DIMENSIONS} keys (${names.join(', ')})`);
  const docs: EmfDocument[] = [];
  const fresh = (): EmfDocument => ({
    _aws: { Timestamp: timestamp, CloudWatchMetrics: [{ Namespace: NAMESPACE, Dimensions: [[FUNCTION, ...names], []], Metrics: [] }] },
    [FUNCTION]: functionName,
    ...Object.fromEntries(group.dimensions),
  });
  for (const e of group.entries.values()) {
    let from = 0;
    for (const piece of pieces(e)) {
      let i = from;
      while (i < docs.length && (e.name in docs[i]! || docs[i]!._aws.CloudWatchMetrics[0]!.Metrics.length >= MAX_METRICS)) i++;
      if (i === docs.length) docs.push(fresh());
      docs[i]!._aws.CloudWatchMetrics[0]!.Metrics.push({ Name: e.name, Unit: e.unit });
      docs[i]![e.name] = piece;
      from = i + 1;
    }
  }
  return docs;
}

/** One invocation's buffered values, and the EMF documents they make. */
export class EmfBuffer {
  private readonly groups = new Map<string, Group>();
  /** Names of metrics whose metadata cannot make a valid document (refused once, with a log line). */
  private readonly refused = new Set<string>();
  private buffered = 0;
  readonly functionName: string;
  private readonly write: (line: string) => void;
  private readonly now: () => number;
  private readonly maxBuffered: number;

  constructor(o: EmfOptions) {
    this.functionName = o.functionName;
    this.write = o.write ?? ((line) => void process.stdout.write(line + '\n'));
    this.now = o.now ?? Date.now;
    this.maxBuffered = o.maxBuffered ?? 1000;
  }

  /** Buffers one recorded value (the registry's listener); values of metrics without CloudWatch metadata are ignored. */
  record(r: Recorded): void {
    const cw = r.metric.cloudwatch;
    if (!cw || this.refused.has(r.metric.name)) return;
    const why = unusable(r.metric);
    if (why) {
      this.refused.add(r.metric.name);
      logError('emf-metric-refused', { metric: r.metric.name }, why);
      return;
    }
    const dimensions = dimensionsOf(cw, r.labels);
    const key = groupKey(dimensions);
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = { dimensions, entries: new Map() }));
    let e = group.entries.get(cw.name);
    if (!e) group.entries.set(cw.name, (e = { name: cw.name, unit: cw.unit, kind: r.metric.type, sum: 0, last: 0, values: [] }));
    e.sum += r.value;
    e.last = r.value;
    if (e.kind === 'histogram') e.values.push(r.value);
    if (++this.buffered >= this.maxBuffered) this.flushEarly();
  }

  /** A flush from inside the code that recorded a value: a failure to write is logged, never thrown at it. */
  private flushEarly(): void {
    try {
      this.flush();
    } catch (e) {
      logError('emf-flush-fault', { function: this.functionName }, e);
    }
  }

  /** The documents the buffered values make, stamped `timestamp` (ms since the epoch); the buffer is kept. */
  documents(timestamp = this.now()): EmfDocument[] {
    return [...this.groups.values()].flatMap((g) => groupDocuments(g, this.functionName, Math.floor(timestamp)));
  }

  /** Writes the buffered values as EMF lines and empties the buffer. */
  flush(): void {
    if (this.groups.size === 0) return;
    const docs = this.documents();
    this.groups.clear();
    this.buffered = 0;
    for (const d of docs) this.write(JSON.stringify(d));
  }
}

/** Whether this process runs as a Lambda function (the runtime sets AWS_LAMBDA_FUNCTION_NAME). */
export function onLambda(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AWS_LAMBDA_FUNCTION_NAME);
}

/**
 * Starts EMF when `enabled` (by default: on Lambda): a buffer listening to the registry, or
 * undefined when off (locally, sys/metrics is the way to read metrics).
 */
export function startEmf(o: EmfOptions, enabled = onLambda()): EmfBuffer | undefined {
  if (!enabled) return undefined;
  const buffer = new EmfBuffer(o);
  (o.registry ?? processRegistry).listen((r) => buffer.record(r));
  return buffer;
}
