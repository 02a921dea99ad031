/**
 * Timing of the calls a request waits on outside the process: storage calls (every store, by
 * wrapping it once where the dependencies are built) and AWS KMS calls (at the places that make
 * them), counted by operation and result with their duration.
 */
import type {
  DeleteOptions,
  IndexEntry,
  IndexRange,
  ItemRef,
  Json,
  ListOptions,
  Partition,
  PutOptions,
  Store,
  TransactWrite,
} from '../store/store';
import { metrics, type DomainMetrics } from './catalog';
import type { BoundCounter, BoundHistogram } from './registry';

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

/** The storage operations that are timed: a partition's calls and the store's own. */
const OPERATIONS = [
  'get',
  'put',
  'delete',
  'list',
  'listKeys',
  'queryIndex',
  'batchPut',
  'batchDelete',
  'increment',
  'getMany',
  'transact',
] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * One storage operation's counters and latency, each bound to its labels once: a timed call
 * builds no label key and allocates no closure (this runs on every store call of every request).
 */
class CallTimer {
  private readonly ok: BoundCounter;
  private readonly failed: BoundCounter;
  private readonly seconds: BoundHistogram;

  constructor(operation: Operation, m: DomainMetrics) {
    this.ok = m.platform.storeCalls.bind({ operation, result: 'ok' });
    this.failed = m.platform.storeCalls.bind({ operation, result: 'error' });
    this.seconds = m.platform.storeSeconds.bind({ operation });
  }

  async run<T>(call: Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const out = await call;
      this.ok.inc();
      return out;
    } catch (e) {
      this.failed.inc();
      throw e;
    } finally {
      this.seconds.observe((performance.now() - started) / 1000);
    }
  }
}

type Timers = Record<Operation, CallTimer>;

function timers(m: DomainMetrics): Timers {
  return Object.fromEntries(OPERATIONS.map((o) => [o, new CallTimer(o, m)])) as Timers;
}

/**
 * A partition whose every call is timed. A class that forwards each call (not a Proxy: property
 * reads such as `name` cost nothing extra, and the type checker holds it to the interface).
 */
class TimedPartition implements Partition {
  readonly name: string;
  readonly atomicBatch?: boolean;

  constructor(
    private readonly p: Partition,
    private readonly t: Timers,
  ) {
    this.name = p.name;
    if (p.atomicBatch !== undefined) this.atomicBatch = p.atomicBatch;
  }

  get<T = Json>(key: string) {
    return this.t.get.run(this.p.get<T>(key));
  }
  put(key: string, value: Json, options?: PutOptions) {
    return this.t.put.run(this.p.put(key, value, options));
  }
  delete(key: string, options?: DeleteOptions) {
    return this.t.delete.run(this.p.delete(key, options));
  }
  list<T = Json>(prefix: string, options?: ListOptions) {
    return this.t.list.run(this.p.list<T>(prefix, options));
  }
  listKeys(prefix: string, options?: ListOptions) {
    return this.t.listKeys.run(this.p.listKeys(prefix, options));
  }
  queryIndex<T = Json>(name: string, range?: IndexRange) {
    return this.t.queryIndex.run(this.p.queryIndex<T>(name, range));
  }
  batchPut(items: { key: string; value: Json; index?: IndexEntry }[]) {
    return this.t.batchPut.run(this.p.batchPut(items));
  }
  batchDelete(keys: string[]) {
    return this.t.batchDelete.run(this.p.batchDelete(keys));
  }
  increment(key: string, by?: number) {
    return this.t.increment.run(this.p.increment(key, by));
  }
}

/**
 * The store with every partition's calls and its own (getMany, transact) counted and timed.
 * Partitions are stateless views of the store (one per mount), so one timed view per name is
 * kept (up to a bound).
 */
class TimedStore implements Store {
  readonly atomicTransact: boolean;
  private readonly partitions = new Map<string, Partition>();
  private readonly t: Timers;

  constructor(
    private readonly s: Store,
    m: DomainMetrics,
  ) {
    this.atomicTransact = s.atomicTransact;
    this.t = timers(m);
  }

  partition(name: string): Partition {
    let t = this.partitions.get(name);
    if (!t) {
      if (this.partitions.size >= 10_000) this.partitions.clear();
      this.partitions.set(name, (t = new TimedPartition(this.s.partition(name), this.t)));
    }
    return t;
  }
  getMany<T = Json>(refs: readonly ItemRef[]) {
    return this.t.getMany.run(this.s.getMany<T>(refs));
  }
  transact(writes: readonly TransactWrite[]) {
    return this.t.transact.run(this.s.transact(writes));
  }
}

export function timedStore(store: Store, m: DomainMetrics = metrics): Store {
  return new TimedStore(store, m);
}
