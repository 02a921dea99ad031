/** Table tests: the blocking-query parameters (?index, ?wait). */
import { describe, expect, it } from 'vitest';
import { blockingParams, MAX_WAIT_MS } from '../../../lib/catalog/http/blocking';

describe('blocking parameters', () => {
  const q = (s: string) => new URLSearchParams(s);
  it.each([
    ['', undefined],
    ['index=0', undefined],
    ['wait=5s', undefined],
    ['index=7', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=5s', { index: 7, waitMs: 5000 }],
    ['index=7&wait=1m', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=10m', { index: 7, waitMs: MAX_WAIT_MS }],
    ['index=7&wait=100ms', { index: 7, waitMs: 1000 }],
    ['index=7&wait=', { index: 7, waitMs: MAX_WAIT_MS }],
  ])('%j -> %j', (s, want) => expect(blockingParams(q(s))).toEqual(want));
  it.each(['index=x', 'index=-3', 'index=3&wait=soon', 'index=3&wait=-5s'])('refuses %j', (s) =>
    expect(() => blockingParams(q(s))).toThrow(/Invalid/),
  );
});
