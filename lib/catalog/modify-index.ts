/**
 * The catalog's global modify index: one atomic counter item. A write takes an index for its
 * record's ModifyIndex before writing (`next`) and bumps the counter again once the record is in
 * place (`settle`), so a reader that read the counter before reading data always sees a larger
 * value after any write it missed: a blocking query can never sleep through a change.
 */
import type { Partition } from '../store/store';

const COUNTER = 'meta/index';
/** Blocking reads poll the counter, starting fast and slowing down to this interval. */
const POLL_MIN_MS = 50;
const POLL_MAX_MS = 1000;

export class ModifyIndex {
  /** The highest value this process has seen: a write's answer reports it without a read. */
  private seen = 1;

  constructor(private readonly part: Partition) {}

  private note(n: number): number {
    this.seen = Math.max(this.seen, n);
    return n;
  }

  /** The current index, never 0 (a fresh store reports 1). */
  async current(): Promise<number> {
    const item = await this.part.get<number>(COUNTER);
    return this.note(Math.max(1, typeof item?.value === 'number' ? item.value : 0));
  }

  /** At least every value this process has read or written so far (never 0). */
  highest(): number {
    return this.seen;
  }

  /** Reserves the index a write records as its ModifyIndex. */
  async next(): Promise<number> {
    return this.note(await this.part.increment(COUNTER));
  }

  /** Marks a write as visible: wakes blocking readers that read the counter before it. */
  async settle(): Promise<void> {
    this.note(await this.part.increment(COUNTER));
  }

  /**
   * Waits until the index passes `index` or `waitMs` elapses (or `signal` aborts); returns the
   * index last seen. Polls one small item with a growing interval.
   */
  async waitPast(index: number, waitMs: number, signal?: AbortSignal): Promise<number> {
    const deadline = Date.now() + waitMs;
    let interval = POLL_MIN_MS;
    for (;;) {
      const now = await this.current();
      if (now > index || Date.now() >= deadline || signal?.aborted) return now;
      await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, deadline - Date.now()))));
      interval = Math.min(POLL_MAX_MS, interval * 1.5);
    }
  }
}
