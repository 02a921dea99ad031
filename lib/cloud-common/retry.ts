/** Bounded retries for a cloud's eventual consistency (a new principal not yet visible, ...). */
import { CloudError } from './cloud-error';

export interface RetryOptions {
  attempts: number;
  delayMs: number;
  /** Whether a failure is worth another try. */
  retryable: (e: unknown) => boolean;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function withRetries<T>(fn: () => Promise<T>, o: RetryOptions): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      if (i >= o.attempts || !o.retryable(e)) throw e;
      await sleep(o.delayMs * i);
    }
  }
}

/** Throttling and transient server errors are retried by every cloud call. */
export const transient = (e: unknown) => e instanceof CloudError && (e.kind === 'throttled' || e.kind === 'server');
