/**
 * Group commit for the embedded store: every write is a synchronous plan (read, check the
 * condition, stage puts and deletes) run one after another in this one process, so a
 * conditional read-modify-write never interleaves with another. The plans waiting while a
 * batch is being written run together next (after one turn of the event loop, so that the
 * callers the last batch released can add their next writes), each seeing what the earlier
 * ones staged, and all they staged goes to LevelDB as ONE atomic batch with one fsync
 * (sync: true). A write's promise settles only once its batch is on disk: an acknowledged
 * write survives kill -9 (and a power cut). A plan that throws (a failed condition) stages
 * nothing.
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

export class GroupWriter {
  private readonly queue: Waiting[] = [];
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
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    try {
      while (this.queue.length) {
        // One turn of the event loop first: the callers the last batch released, and requests
        // that arrived meanwhile, stage their writes in this group instead of the next one.
        await new Promise((r) => setImmediate(r));
        await this.writeGroup(this.queue.splice(0, MAX_GROUP));
      }
    } finally {
      // Reached synchronously after the last emptiness check: no write can be left waiting.
      this.pumping = undefined;
    }
  }

  private async writeGroup(group: Waiting[]): Promise<void> {
    const staged = new Map<string, Op>();
    const outcomes = group.map((w) => this.plan(w.plan, staged));
    try {
      if (staged.size) await this.db.batch([...staged.values()], { sync: this.sync });
      this.stats.batches++;
      this.stats.plans += group.length;
    } catch (e) {
      for (const w of group) w.reject(e);
      return;
    }
    group.forEach((w, i) => {
      const o = outcomes[i]!;
      if (o.ok) w.resolve(o.value);
      else w.reject(o.error);
    });
  }

  /** Runs one plan against the store and `staged`; on success adds its own writes to `staged`. */
  private plan(plan: Plan<unknown>, staged: Map<string, Op>): { ok: true; value: unknown } | { ok: false; error: unknown } {
    const mine = new Map<string, Op>();
    const read = (key: Buffer): Buffer | undefined => {
      const id = key.toString('latin1');
      const op = mine.get(id) ?? staged.get(id);
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
      for (const [id, op] of mine) staged.set(id, op);
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error };
    }
  }
}
