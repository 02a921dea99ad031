/** Issuer references (lib/ssh/issuer-ref.ts): what a role's issuer_ref may hold, and `default` in any spelling. */
import { describe, expect, it } from 'vitest';
import { isIssuerRef, normalRef, unknownRef } from '../../lib/ssh/issuer-ref';

describe('issuer references', () => {
  it.each([
    ['default', 'default'],
    [' Default ', 'default'],
    ['DEFAULT', 'default'],
    [' ca-2026 ', 'ca-2026'],
    ['', ''],
  ])('%j reads as %j', (given, expected) => {
    expect(normalRef(given)).toBe(expected);
  });

  it.each([
    ['default', true],
    ['0f6e1b9a-2c3d-4e5f-8a9b-0c1d2e3f4a5b', true],
    ['ca.2026_old-1', true],
    ['a', true],
    ['-leading-dash', false],
    ['two words', false],
    ['a/b', false],
    ['x'.repeat(129), false],
  ])('%j is a possible reference: %s', (ref, ok) => {
    expect(isIssuerRef(ref)).toBe(ok);
  });

  it('names the reference in the miss, as OpenBao does, cut at 128 characters', () => {
    expect(unknownRef('old')).toBe('unable to find issuer for reference: old');
    expect(unknownRef('y'.repeat(300))).toHaveLength('unable to find issuer for reference: '.length + 128);
  });
});
