/**
 * The catalog's global modify index: one versioned counter item, moved only by conditional
 * writes (value + 1 on condition of the version read), so every value is taken once and values
 * only grow. A KV write moves it in the same transaction as its item (lib/catalog/kv-write.ts): a
 * reader that reads the counter before the data then sees either both or neither. Writes of
 * several items (catalog registrations, deletes) take an index before writing (`next`) and move
 * the counter again once their records are in place (`settle`), so a reader that read the
 * counter before reading data always sees a larger value after any write it missed: a blocking
 * query can never sleep through a change.
 *
 * Stores before this one moved the counter with an atomic ADD; such an item reads as its number
 * and its version counts those ADDs, so the first conditional write takes over from it.
 */
import { ConflictError, ExistsError } from '../domain-errors';
import type { Partition } from '../store/store';

export const COUNTER = 'meta/index';
/** Blocking reads poll the counter, starting fast and slowing down to this interval. */
const POLL_MIN_MS = 50;
const POLL_MAX_MS = 1000;
/**
 * How long this process trusts the counter's version it last read or wrote, to write on condition
 * of it without reading first (a wrong guess costs a failed write and a read, never a wrong index).
 */
const GUESS_MS = 1000;
const BUMP_ATTEMPTS = 40;

/** The counter's value and version (0: absent). */
export interface CounterState {
  value: number;
  version: number;
}

const lost = (e: unknown) => e instanceof ConflictError || e instanceof ExistsError;

export class ModifyIndex {
  /** The highest value this process has seen: a write's answer reports it without a read. */
  private seen = 1;
  private known?: CounterState & { at: number };
  /** Until when no guess is made: a guess just failed, so other processes are writing too. */
  private distrustUntil = 0;

  constructor(private readonly part: Partition) {}

  private note(n: number): number {
    this.seen = Math.max(this.seen, n);
    return n;
  }

  /** Records the counter as read or written now (a read that was overtaken by a newer state is not kept). */
  remember(state: CounterState): void {
    this.note(state.value);
    if (this.known && state.version < this.known.version) return;
    this.known = { ...state, at: Date.now() };
  }

  /**
   * Drops the guess after a write that conditioned on it failed, and makes none for a while:
   * with other processes writing, a guess mostly fails (a failed transaction costs a read to
   * explain it, then the read and the write again), while a read made beside the token check
   * costs no round trip of its own.
   */
  forget(): void {
    this.known = undefined;
    this.distrustUntil = Date.now() + GUESS_MS;
  }

  /** The counter as this process last read or wrote it, if recent enough to write on condition of it. */
  guess(): CounterState | undefined {
    const k = this.known;
    return k && Date.now() - k.at < GUESS_MS && Date.now() >= this.distrustUntil ? { value: k.value, version: k.version } : undefined;
  }

  /** The counter from a read of its item (absent: value 0, version 0). */
  stateOf(item: { value: unknown; version: number } | undefined): CounterState {
    const state = { value: typeof item?.value === 'number' ? item.value : 0, version: item?.version ?? 0 };
    this.remember(state);
    return state;
  }

  /** The current index, never 0 (a fresh store reports 1). */
  async current(): Promise<number> {
    return Math.max(1, this.stateOf(await this.part.get<number>(COUNTER)).value);
  }

  /** At least every value this process has read or written so far (never 0). */
  highest(): number {
    return this.seen;
  }

  /** Reserves the index a write records as its ModifyIndex. */
  next(): Promise<number> {
    return this.bump();
  }

  /** Marks a write as visible: wakes blocking readers that read the counter before it. */
  async settle(): Promise<void> {
    await this.bump();
  }

  /** value + 1 on condition of the version: from the guess first, then from fresh reads. */
  private async bump(): Promise<number> {
    for (let i = 0; ; i++) {
      const cur = (i === 0 && this.guess()) || this.stateOf(await this.part.get<number>(COUNTER));
      const value = cur.value + 1;
      try {
        const version = await this.part.put(COUNTER, value, cur.version ? { ifVersion: cur.version } : { ifAbsent: true });
        this.remember({ value, version });
        return value;
      } catch (e) {
        this.forget();
        if (!lost(e) || i + 1 >= BUMP_ATTEMPTS) throw e;
        if (i > 0) await new Promise((r) => setTimeout(r, Math.random() * 5 * i));
      }
    }
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
