/**
 * Group commit for the embedded store: every write is a synchronous plan (read, check the
 * condition, stage puts and deletes) run one after another in this one process, so a
 * conditional read-modify-write never interleaves with another. The plans waiting while a
 * batch is being written run together next, each seeing what the earlier ones staged, and all
 * they staged goes to LevelDB as ONE atomic batch with one fsync (sync: true). A write's
 * promise settles only once its batch is on disk: an acknowledged write survives kill -9 (and
 * a power cut). A plan that throws (a failed condition) stages nothing.
 */
import type { ClassicLevel } from 'classic-level';

export type Db = ClassicLevel<Buffer, Buffer>;

/** What a plan sees: the committed store plus whatever the earlier plans of its group staged. */
export interface WriteView {
  get(key: Buffer): Buffer | undefined;
  put(key: Buffer, value: Buffer): void;
  del(key: Buffer): void;
}

type Plan<R> = (view: WriteView) => R;

interface Waiting {
  plan: Plan<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Op = { type: 'put'; key: Buffer; value: Buffer } | { type: 'del'; key: Buffer };

/** Most plans written in one batch (a bound on the batch's memory, not a limit on callers). */
const MAX_GROUP = 512;
/** Batches handed to LevelDB and not yet settled. */
const MAX_IN_FLIGHT = 2;

interface Batch {
  writes: Map<string, Op>;
  /** Settles (never rejects) once the batch's writes are answered. */
  done: Promise<void>;
  failed: boolean;
  error?: unknown;
}

export class GroupWriter {
  private readonly queue: Waiting[] = [];
  private readonly inFlight: Batch[] = [];
  private pumping: Promise<void> | undefined;
  /** Batches written and plans they carried, for the benchmarks. */
  readonly stats = { batches: 0, plans: 0 };

  constructor(
    private readonly db: Db,
    private readonly sync = true,
  ) {}

  /** Runs `plan` in turn and resolves with its result once what it staged is durable. */
  run<R>(plan: Plan<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ plan, resolve: resolve as (v: unknown) => void, reject });
      this.pumping ??= this.pump();
    });
  }

  /** Resolves when every write queued so far has settled. */
  async drain(): Promise<void> {
    while (this.pumping || this.inFlight.length) await Promise.all([this.pumping, ...this.inFlight.map((b) => b.done)]);
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length) {
        if (this.inFlight.length >= MAX_IN_FLIGHT) await this.inFlight[0]!.done;
        else this.startGroup(this.queue.splice(0, MAX_GROUP));
      }
    } finally {
      // Reached synchronously after the last emptiness check: no write can be left waiting.
      this.pumping = undefined;
    }
  }

  /**
   * Plans a group against the store and the batches in flight, and hands its batch to LevelDB:
   * at once when it shares no key with a batch in flight (their order does not matter then),
   * else after those (LevelDB would not keep the order of two batches written concurrently).
   */
  private startGroup(group: Waiting[]): void {
    const writes = new Map<string, Op>();
    const reads = new Set<string>();
    const outcomes = group.map((w) => this.plan(w.plan, writes, reads));
    const after = this.inFlight.filter((b) => [...b.writes.keys()].some((id) => writes.has(id) || reads.has(id)));
    const batch: Batch = { writes, failed: false, done: Promise.resolve() };
    batch.done = (async () => {
      try {
        for (const b of after) {
          await b.done;
          if (b.failed) throw b.error;
        }
        if (writes.size) await this.db.batch([...writes.values()], { sync: this.sync });
        this.stats.batches++;
        this.stats.plans += group.length;
      } catch (e) {
        batch.failed = true;
        batch.error = e;
      }
      this.inFlight.splice(this.inFlight.indexOf(batch), 1);
      group.forEach((w, i) => {
        const o = outcomes[i]!;
        if (batch.failed) w.reject(batch.error);
        else if (o.ok) w.resolve(o.value);
        else w.reject(o.error);
      });
    })();
    this.inFlight.push(batch);
  }

  /** The newest write of `id` in a batch in flight. */
  private inFlightWrite(id: string): Op | undefined {
    for (let i = this.inFlight.length - 1; i >= 0; i--) {
      const op = this.inFlight[i]!.writes.get(id);
      if (op) return op;
    }
    return undefined;
  }

  /**
   * Runs one plan against the store, the batches in flight and this group's `writes`; on
   * success adds its own writes to `writes`. Every key it reads goes into `reads`.
   */
  private plan(plan: Plan<unknown>, writes: Map<string, Op>, reads: Set<string>): { ok: true; value: unknown } | { ok: false; error: unknown } {
    const mine = new Map<string, Op>();
    const read = (key: Buffer): Buffer | undefined => {
      const id = key.toString('latin1');
      reads.add(id);
      const op = mine.get(id) ?? writes.get(id) ?? this.inFlightWrite(id);
      if (op) return op.type === 'put' ? op.value : undefined;
      return this.db.getSync(key);
    };
    const view: WriteView = {
      get: read,
      put: (key, value) => void mine.set(key.toString('latin1'), { type: 'put', key, value }),
      del: (key) => void mine.set(key.toString('latin1'), { type: 'del', key }),
    };
    try {
      const value = plan(view);
      for (const [id, op] of mine) writes.set(id, op);
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
