/** Cloud engine role names: one spelling only, so the path a policy sees is the item's own name. */
import { describe, expect, it } from 'vitest';
import { roleName } from '../../lib/cloud-common/names';

describe('roleName', () => {
  it.each(['a', 'prod', 'web-1', 'a.b_c', '_x_', 'x'.repeat(128)])('accepts %j', (name) => {
    expect(roleName(name)).toBe(name);
  });

  it.each([
    ['empty', '', /invalid role name ""/],
    ['a leading dash', '-a', /use letters, digits/],
    ['a trailing dot', 'a.', /use letters, digits/],
    ['a slash', 'a/b', /use letters, digits/],
    ['a space', 'a b', /use letters, digits/],
    ['too long', 'x'.repeat(129), /at most 128/],
    ['upper case', 'PROD', /role names are lower case; use "prod"/],
    ['mixed case', 'Web-1', /use "web-1"/],
  ])('refuses %s', (_name, raw, message) => {
    expect(() => roleName(raw)).toThrow(message);
  });

  it('quotes at most 64 characters of a refused name', () => {
    expect(() => roleName('X'.repeat(200))).toThrow(new RegExp(`"${'X'.repeat(64)}"`));
    try {
      roleName('X'.repeat(200));
    } catch (e) {
      expect((e as Error).message).not.toContain('X'.repeat(65));
    }
  });
});
