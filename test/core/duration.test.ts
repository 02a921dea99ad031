/** Durations as the reference server reads and prints them. */
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../lib/duration';

describe('durations', () => {
  it.each([
    ['1h', 3600],
    ['90s', 90],
    ['1h30m', 5400],
    ['48d', 48 * 86400],
    ['300', 300],
    [300, 300],
    ['', 0],
    ['1.5h', 5400],
  ])('%s is %s seconds', (input, seconds) => expect(parseDuration(input)).toBe(seconds));

  it.each(['abc', '1x', '-5s', -1, '1 h', 'h', {}, '99999999999h', 1e300])('%s is not a duration', (input) =>
    expect(parseDuration(input)).toBeUndefined(),
  );
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [59, '59s'],
    [60, '1m0s'],
    [90, '1m30s'],
    [3600, '1h0m0s'],
    [5405, '1h30m5s'],
    [48 * 86400, '1152h0m0s'],
  ])('%s seconds print as %s', (seconds, text) => expect(formatDuration(seconds)).toBe(text));

  it('reads back what it prints', () => {
    for (const s of [0, 1, 59, 61, 3599, 3601, 86400 + 7]) expect(parseDuration(formatDuration(s))).toBe(s);
  });
});
