/**
 * When to renew and the loop that does it. A credential is renewed at about two thirds of its
 * lifetime (2/3 ± 10%, so that many agents started together spread out); a failed renewal is
 * tried again after an exponential back-off with jitter, capped, for as long as it takes. The
 * current files are never touched by a failure: they are replaced only by a complete new set.
 * A stop abandons a renewal whose answer has not arrived (nothing written) and ends the loop.
 */
import type { LatchkeyClient } from '../client/client';
import { runCommand } from './command';
import { replaceFiles } from './files';
import type { Job, Validity } from './job';
import { errorText, type AgentLog } from './log';
import type { Session } from './session';

export const RENEW_FRACTION = 2 / 3;
export const JITTER = 0.1;

export interface Backoff {
  /** The first wait (ms), doubled each failure. */
  baseMs: number;
  /** The longest wait (ms). */
  capMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, capMs: 60_000 };

/** Milliseconds from `now` to the renewal of `v` (0 when due); `random` in [0, 1). */
export function renewalDelay(v: Validity, now: number, random: () => number): number {
  const life = Math.max(0, v.end - v.start);
  const at = v.start + life * RENEW_FRACTION * (1 + (random() * 2 - 1) * JITTER);
  return Math.max(0, Math.round(at - now));
}

/** The wait after the `failures`-th failure in a row (1, 2, …): base·2^(n-1), capped, ±20%. */
export function backoffDelay(failures: number, random: () => number, b: Backoff = DEFAULT_BACKOFF): number {
  const plain = Math.min(b.capMs, b.baseMs * 2 ** Math.min(30, Math.max(0, failures - 1)));
  return Math.round(Math.min(b.capMs, plain * (0.8 + random() * 0.4)));
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or early when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    }),
};

export interface LoopDeps {
  client: LatchkeyClient;
  session: Session;
  log: AgentLog;
  clock: Clock;
  random: () => number;
  backoff: Backoff;
  /** Runs a job's command (default: sh -c). */
  run?: typeof runCommand;
}

class Abandoned extends Error {}

/** `p`, or a rejection with Abandoned once `signal` aborts (the call itself is left to die). */
function unlessStopped<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Abandoned());
  return new Promise((resolve, reject) => {
    const stop = () => reject(new Abandoned());
    signal.addEventListener('abort', stop, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

/** One renewal: fetch, write atomically, log, run the command. Answers the new validity and the wait to the next. */
async function renewOnce(job: Job, d: LoopDeps, signal: AbortSignal): Promise<{ v: Validity; wait: number }> {
  const fetched = await unlessStopped(
    d.session.call(() => job.fetch(d.client)),
    signal,
  );
  for (const w of fetched.writes) if (w.mode === 0o600) d.log.secret(w.content);
  replaceFiles(fetched.writes);
  const v = fetched.validity;
  const wait = renewalDelay(v, d.clock.now(), d.random);
  d.log.line('renewed', { ...job.label, serial: v.serial, not_after: iso(v.end), next_renewal: iso(d.clock.now() + wait) });
  if (job.command) {
    const r = await (d.run ?? runCommand)(job.command);
    d.log.line('command', { ...job.label, ...r });
  }
  return { v, wait };
}

/** Keeps one job's files fresh until `signal` aborts. */
export async function keep(job: Job, d: LoopDeps, signal: AbortSignal): Promise<void> {
  let v = job.current();
  let wait = v ? renewalDelay(v, d.clock.now(), d.random) : 0;
  if (v) d.log.line('current', { ...job.label, serial: v.serial, not_after: iso(v.end), next_renewal: iso(d.clock.now() + wait) });
  let failures = 0;
  for (;;) {
    if (wait > 0) await d.clock.sleep(wait, signal);
    if (signal.aborted) return;
    try {
      ({ v, wait } = await renewOnce(job, d, signal));
      failures = 0;
    } catch (e) {
      if (e instanceof Abandoned || signal.aborted) {
        d.log.line('abandoned', { ...job.label, reason: 'stopping; nothing written' });
        return;
      }
      failures++;
      wait = backoffDelay(failures, d.random, d.backoff);
      d.log.line('backoff', {
        ...job.label,
        error: errorText(e),
        failures,
        retry_in_ms: wait,
        ...(v ? { current_not_after: iso(v.end), current_expired: v.end <= d.clock.now() } : { current: 'none' }),
      });
    }
  }
}
