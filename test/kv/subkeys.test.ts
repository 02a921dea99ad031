import { describe, expect, it } from 'vitest';
import { subkeys } from '../../lib/kv/subkeys';

const data = { foo: 'abc', bar: { baz: { qux: 'x' } }, list: [1, 2], empty: {} };

describe("a version's subkeys, as Vault answers them", () => {
  it('every leaf and empty object null, all levels with depth 0', () => {
    expect(subkeys(data, 0)).toEqual({ foo: null, bar: { baz: { qux: null } }, list: null, empty: null });
  });

  it('keys at the depth asked are leaves', () => {
    expect(subkeys(data, 1)).toEqual({ foo: null, bar: null, list: null, empty: null });
    expect(subkeys(data, 2)).toEqual({ foo: null, bar: { baz: null }, list: null, empty: null });
  });
});
