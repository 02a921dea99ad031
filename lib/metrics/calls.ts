/**
 * Timing of the calls a request waits on outside the process: storage calls (every store, by
 * wrapping it once where the dependencies are built) and AWS KMS calls (at the places that make
 * them), counted by operation and result with their duration.
 */
import type { Partition, Store } from '../store/store';
import { metrics, type DomainMetrics } from './catalog';

/** Runs one KMS call, counting it by operation and result with its duration. */
export async function timedKms<T>(operation: string, run: () => Promise<T>, m: DomainMetrics = metrics): Promise<T> {
  const started = performance.now();
  let result = 'error';
  try {
    const out = await run();
    result = 'ok';
    return out;
  } finally {
    m.platform.kmsCalls.inc({ operation, result });
    m.platform.kmsSeconds.observe({ operation }, (performance.now() - started) / 1000);
  }
}

/** A method that returns a promise, timed as the storage operation `operation` (its method's name). */
function timedMethod(fn: (...a: unknown[]) => unknown, self: object, operation: string, m: DomainMetrics) {
  return (...args: unknown[]) => {
    const started = performance.now();
    const done = (result: string) => {
      m.platform.storeCalls.inc({ operation, result });
      m.platform.storeSeconds.observe({ operation }, (performance.now() - started) / 1000);
    };
    const out = fn.apply(self, args);
    if (!(out instanceof Promise)) return out;
    return out.then(
      (v) => (done('ok'), v),
      (e: unknown) => {
        done('error');
        throw e;
      },
    );
  };
}

/** `target` with every function property timed (`skip` aside); functions are wrapped once per property. */
function timedObject<T extends object>(target: T, m: DomainMetrics, skip: ReadonlySet<PropertyKey>): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      const v = Reflect.get(t, prop, t) as unknown;
      if (typeof v !== 'function' || skip.has(prop) || typeof prop !== 'string') return v;
      let w = wrapped.get(prop);
      if (!w) {
        w = timedMethod(v as (...a: unknown[]) => unknown, t, prop, m);
        wrapped.set(prop, w);
      }
      return w;
    },
  });
}

const NOT_CALLS = new Set<PropertyKey>(['constructor', 'close']);

/**
 * The store with every partition's calls (and the store's own) counted and timed. Partitions are
 * stateless views of the store (one per mount), so one timed view per name is kept (up to a bound).
 */
export function timedStore<S extends Store>(store: S, m: DomainMetrics = metrics): S {
  const partitions = new Map<string, Partition>();
  const timedPartition = (part: Partition) => {
    let t = partitions.get(part.name);
    if (!t) {
      if (partitions.size >= 10_000) partitions.clear();
      partitions.set(part.name, (t = timedObject(part, m, NOT_CALLS)));
    }
    return t;
  };
  const partitionOf = timedObject(store, m, new Set([...NOT_CALLS, 'partition']));
  return new Proxy(partitionOf, {
    get(t, prop, receiver) {
      if (prop !== 'partition') return Reflect.get(t, prop, receiver) as unknown;
      return (name: string) => timedPartition(store.partition(name));
    },
  });
}
