/** Cloud engine role names: stored lower-cased as the Vault plugins store them (the paths fold them before policies see them). */
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
  ])('refuses %s', (_name, raw, message) => {
    expect(() => roleName(raw)).toThrow(message);
  });

  it.each([
    ['PROD', 'prod'],
    ['Web-1', 'web-1'],
  ])('folds %j to %j', (raw, folded) => {
    expect(roleName(raw)).toBe(folded);
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
