import { describe, expect, it } from 'vitest';
import { mergePatch } from '../../lib/kv/merge-patch';

describe('JSON merge patch (RFC 7386), as a KV patch applies it', () => {
  it.each([
    ['adds and replaces keys', { a: 'b' }, { a: 'c', d: 'e' }, { a: 'c', d: 'e' }],
    ['null removes a key', { a: 'b', c: 'd' }, { a: null }, { c: 'd' }],
    ['merges nested objects', { a: { b: 'c', d: 'e' } }, { a: { b: null, f: 'g' } }, { a: { d: 'e', f: 'g' } }],
    ['replaces arrays whole', { a: [1, 2] }, { a: [3] }, { a: [3] }],
    ['an object replaces a scalar', { a: 'b' }, { a: { c: 'd' } }, { a: { c: 'd' } }],
    ['null for an absent key changes nothing', { a: 'b' }, { x: null }, { a: 'b' }],
  ])('%s', (_label, target, patch, expected) => {
    expect(mergePatch(target, patch)).toEqual(expected);
  });

  it('leaves the target as it was', () => {
    const target = { a: { b: 'c' } };
    mergePatch(target, { a: { b: 'x' } });
    expect(target).toEqual({ a: { b: 'c' } });
  });
});
