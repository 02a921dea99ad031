/** Names of roles and keys in a path segment (lib/ssh/names.ts). */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { checkName } from '../../lib/ssh/names';

describe('checkName', () => {
  it.each(['a', 'otp', 'my-role', 'my_role', 'v1.2', 'A9', 'x'.repeat(128)])('accepts %j', (name) => {
    expect(checkName(name, 'role')).toBe(name);
  });
  it.each(['', '-a', 'a-', '.a', 'a.', 'a b', 'a/b', 'é', 'x'.repeat(129)])('refuses %j with a 400 naming what it is', (name) => {
    expect(() => checkName(name, 'key')).toThrow(InvalidInput);
    expect(() => checkName(name, 'key')).toThrow(/^invalid key name.*: use letters, digits, '_', '-' and '\.', at most 128 characters$/);
  });
  it('never quotes a long name back', () => {
    expect(() => checkName('x'.repeat(200), 'role')).toThrow(/^invalid role name: /);
  });
});
