/**
 * The input limits every surface applies: nesting deeper than 64 levels, or more than 100,000
 * values in all, is named; anything within them passes. The walk is iterative, so no input
 * overflows it.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../lib/errors';
import { JSON_LIMITS, checkJsonLimits, jsonLimitExceeded } from '../../lib/http/json-limits';

const nested = (levels: number, open = '{"a":', close = '}') => JSON.parse(open.repeat(levels) + '1' + close.repeat(levels)) as unknown;

describe('jsonLimitExceeded', () => {
  it('limits depth to 64 and values to 100,000', () => {
    expect(JSON_LIMITS).toEqual({ depth: 64, values: 100_000 });
  });

  it.each<[string, unknown]>([
    ['a scalar', 'x'],
    ['null', null],
    ['an empty object', {}],
    ['a typical body', { common_name: 'a.example.com', alt_names: ['b', 'c'], ttl: '1h', meta: { team: 'x' } }],
    ['objects 64 levels deep', nested(64)],
    ['arrays 64 levels deep', nested(64, '[', ']')],
    ['exactly 100,000 values', Array.from({ length: 99_999 }, () => 0)],
  ])('passes %s', (_name, value) => {
    expect(jsonLimitExceeded(value)).toBeUndefined();
  });

  it.each<[string, unknown, string]>([
    ['objects 65 levels deep', nested(65), 'nests deeper than 64 levels'],
    ['arrays 100,000 levels deep', nested(100_000, '[', ']'), 'nests deeper than 64 levels'],
    ['mixed nesting, deep in the last member', { a: 1, b: [{ c: nested(70) }] }, 'nests deeper than 64 levels'],
    ['an array of 100,000 values', Array.from({ length: 100_000 }, () => 0), 'holds more than 100000 values'],
    [
      'an object of 100,000 keys',
      Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i])),
      'holds more than 100000 values',
    ],
    ['many small containers', Array.from({ length: 40_000 }, () => ({ a: [1] })), 'holds more than 100000 values'],
  ])('names %s', (_name, value, message) => {
    expect(jsonLimitExceeded(value)).toBe(message);
  });

  it('counts keys named like Object members as data', () => {
    expect(jsonLimitExceeded(JSON.parse('{"__proto__":{"a":1},"constructor":[1]}'), { depth: 1, values: 10 })).toBe(
      'nests deeper than 1 levels',
    );
    expect(jsonLimitExceeded(JSON.parse('{"__proto__":{"a":1},"constructor":[1]}'), { depth: 2, values: 4 })).toBe(
      'holds more than 4 values',
    );
  });
});

describe('checkJsonLimits', () => {
  it('throws a 400 naming what was refused and the limit', () => {
    try {
      checkJsonLimits(nested(10_000), 'the request body');
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(HttpError);
      expect((e as HttpError).status).toBe(400);
      expect((e as HttpError).messages).toEqual(['the request body nests deeper than 64 levels']);
    }
  });
});
