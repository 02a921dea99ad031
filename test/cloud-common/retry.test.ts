/** Bounded retries for a cloud's eventual consistency. No timings are asserted (delayMs 0). */
import { describe, expect, it } from 'vitest';
import { CloudError } from '../../lib/cloud-common/cloud-error';
import { transient, withRetries } from '../../lib/cloud-common/retry';

function failing(times: number, error: unknown) {
  let calls = 0;
  const fn = async () => {
    calls++;
    if (calls <= times) throw error;
    return calls;
  };
  return { fn, calls: () => calls };
}

describe('withRetries', () => {
  it('returns the first success, after retryable failures', async () => {
    const f = failing(2, new Error('not yet'));
    expect(await withRetries(f.fn, { attempts: 5, delayMs: 0, retryable: () => true })).toBe(3);
    expect(f.calls()).toBe(3);
  });

  it('gives up after the last attempt with the last error', async () => {
    const e = new Error('still not');
    const f = failing(10, e);
    await expect(withRetries(f.fn, { attempts: 3, delayMs: 0, retryable: () => true })).rejects.toBe(e);
    expect(f.calls()).toBe(3);
  });

  it('does not retry what is not retryable', async () => {
    const f = failing(10, new Error('final'));
    await expect(withRetries(f.fn, { attempts: 3, delayMs: 0, retryable: () => false })).rejects.toThrow('final');
    expect(f.calls()).toBe(1);
  });
});

describe('transient', () => {
  it('is throttling and server failures of a cloud call only', () => {
    expect(transient(new CloudError('throttled', 429, 'x'))).toBe(true);
    expect(transient(new CloudError('server', 500, 'x'))).toBe(true);
    expect(transient(new CloudError('forbidden', 403, 'x'))).toBe(false);
    expect(transient(new CloudError('not-found', 404, 'x'))).toBe(false);
    expect(transient(new Error('x'))).toBe(false);
  });
});
