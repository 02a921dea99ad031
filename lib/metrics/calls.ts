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

/** Runs one storage call, counting it by operation and result with its duration. */
function timed<T>(operation: string, call: Promise<T>, m: DomainMetrics): Promise<T> {
  const started = performance.now();
  const done = (result: string) => {
    m.platform.storeCalls.inc({ operation, result });
    m.platform.storeSeconds.observe({ operation }, (performance.now() - started) / 1000);
  };
  return call.then(
    (v) => (done('ok'), v),
    (e: unknown) => {
      done('error');
      throw e;
    },
  );
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
    private readonly m: DomainMetrics,
  ) {
    this.name = p.name;
    if (p.atomicBatch !== undefined) this.atomicBatch = p.atomicBatch;
  }

  get<T = Json>(key: string) {
    return timed('get', this.p.get<T>(key), this.m);
  }
  put(key: string, value: Json, options?: PutOptions) {
    return timed('put', this.p.put(key, value, options), this.m);
  }
  delete(key: string, options?: DeleteOptions) {
    return timed('delete', this.p.delete(key, options), this.m);
  }
  list<T = Json>(prefix: string, options?: ListOptions) {
    return timed('list', this.p.list<T>(prefix, options), this.m);
  }
  listKeys(prefix: string, options?: ListOptions) {
    return timed('listKeys', this.p.listKeys(prefix, options), this.m);
  }
  queryIndex<T = Json>(name: string, range?: IndexRange) {
    return timed('queryIndex', this.p.queryIndex<T>(name, range), this.m);
  }
  batchPut(items: { key: string; value: Json; index?: IndexEntry }[]) {
    return timed('batchPut', this.p.batchPut(items), this.m);
  }
  batchDelete(keys: string[]) {
    return timed('batchDelete', this.p.batchDelete(keys), this.m);
  }
  increment(key: string, by?: number) {
    return timed('increment', this.p.increment(key, by), this.m);
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

  constructor(
    private readonly s: Store,
    private readonly m: DomainMetrics,
  ) {
    this.atomicTransact = s.atomicTransact;
  }

  partition(name: string): Partition {
    let t = this.partitions.get(name);
    if (!t) {
      if (this.partitions.size >= 10_000) this.partitions.clear();
      this.partitions.set(name, (t = new TimedPartition(this.s.partition(name), this.m)));
    }
    return t;
  }
  getMany<T = Json>(refs: readonly ItemRef[]) {
    return timed('getMany', this.s.getMany<T>(refs), this.m);
  }
  transact(writes: readonly TransactWrite[]) {
    return timed('transact', this.s.transact(writes), this.m);
  }
}

export function timedStore(store: Store, m: DomainMetrics = metrics): Store {
  return new TimedStore(store, m);
}
