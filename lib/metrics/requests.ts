/**
 * Request metrics, recorded at the edge in one place (the access log middleware, once a request
 * is answered): requests by function, mount, path template, operation and status class, and
 * their duration. Every label is bounded: the function's name, the mount the route belongs to,
 * the declared path template (never the path asked: it names items), one of five operations and
 * a status class; a request no route took has an empty mount and path.
 */
import { registry, type Registry } from './registry';

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
  };
}

const metrics = requestMetrics(registry);

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
  const cls = statusClass(a.status);
  const fn = typeof a.function === 'string' ? a.function : '';
  const mount = typeof a.mount === 'string' ? a.mount : '';
  m.requests.inc({ function: fn, mount, path: typeof a.path === 'string' ? a.path : '', operation: op, status_class: cls });
  m.duration.observe({ function: fn, mount, operation: op, status_class: cls }, a.seconds);
}
