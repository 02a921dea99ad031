/**
 * Request metrics, recorded at the edge in one place (the access log middleware, once a request
 * is answered): requests by function, mount, path template, operation and status class, and
 * their duration. Every label is bounded: the function's name, the mount the route belongs to,
 * the declared path template (never the path asked: it names items), one of five operations and
 * a status class; a request no route took has an empty mount and path.
 */
import { registry, type BoundCounter, type BoundHistogram, type Registry } from './registry';

const OPERATIONS = new Set(['read', 'list', 'update', 'create', 'delete']);

export function requestMetrics(r: Registry) {
  return {
    requests: r.counter({
      name: 'latchkey_requests_total',
      help: 'Requests answered, by function, mount, path template, operation and status class.',
      labels: ['function', 'mount', 'path', 'operation', 'status_class'],
      cloudwatch: { name: 'Requests', unit: 'Count', dimensions: ['mount', 'operation', 'status_class'] },
    }),
    duration: r.histogram({
      name: 'latchkey_request_duration_seconds',
      help: 'Time to answer a request, in seconds, by function, mount, operation and status class.',
      labels: ['function', 'mount', 'operation', 'status_class'],
      cloudwatch: { name: 'RequestDuration', unit: 'Seconds', dimensions: ['mount', 'operation', 'status_class'] },
    }),
    /** The series bound so far (seriesOf), up to MAX_BOUND label sets (values from configuration: mounts, routes). */
    bound: { root: new Map() as Level, size: 0 },
  };
}

type RequestMetrics = ReturnType<typeof requestMetrics>;

const metrics = requestMetrics(registry);

/** One label set's request count and duration, bound once (registry.ts `bind`). */
interface RequestSeries {
  count: BoundCounter;
  duration: BoundHistogram;
}

/** Nested maps from each label value in turn to the bound series: no key string is built per request. */
type Level = Map<string, Level | RequestSeries>;

const MAX_BOUND = 5000;

function seriesOf(m: RequestMetrics, fn: string, mount: string, path: string, op: string, cls: string): RequestSeries {
  const cache = m.bound;
  if (cache.size >= MAX_BOUND) {
    cache.root = new Map();
    cache.size = 0;
  }
  let level = cache.root;
  for (const v of [fn, mount, path, op]) {
    let next = level.get(v) as Level | undefined;
    if (!next) level.set(v, (next = new Map()));
    level = next;
  }
  let s = level.get(cls) as RequestSeries | undefined;
  if (!s) {
    s = {
      count: m.requests.bind({ function: fn, mount, path, operation: op, status_class: cls }),
      duration: m.duration.bind({ function: fn, mount, operation: op, status_class: cls }),
    };
    level.set(cls, s);
    cache.size++;
  }
  return s;
}

/** `2xx`, `4xx`, … for a status (anything outside 100–599 is `5xx`: the edge answered wrongly). */
export function statusClass(status: number): string {
  return status >= 100 && status < 600 ? `${Math.floor(status / 100)}xx` : '5xx';
}

/** What the access log line knows of an answered request. */
export interface AnsweredRequest {
  function: unknown;
  mount?: unknown;
  path?: unknown;
  operation?: string | undefined;
  status: number;
  seconds: number;
}

export function recordRequest(a: AnsweredRequest, m = metrics): void {
  const op = a.operation && OPERATIONS.has(a.operation) ? a.operation : 'other';
  const fn = typeof a.function === 'string' ? a.function : '';
  const mount = typeof a.mount === 'string' ? a.mount : '';
  const s = seriesOf(m, fn, mount, typeof a.path === 'string' ? a.path : '', op, statusClass(a.status));
  s.count.inc();
  s.duration.observe(a.seconds);
}
