/** Input quoted back in error messages (lib/quote.ts): short plain values only, never a key or a blob. */
import { describe, expect, it } from 'vitest';
import { plainOr, quoted } from '../../lib/quote';

describe('quoted and plainOr', () => {
  it.each(['role-1', 'user@host', '10.0.0.0/8', 'fd00::1', 'a=b,c+d', 'x'.repeat(64)])('quote %j', (v) => {
    expect(quoted(v)).toBe(` "${v}"`);
    expect(plainOr(v)).toBe(v);
  });
  it.each([
    '',
    'x'.repeat(65),
    'a b',
    'a"b',
    'line\nbreak',
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI',
    '-----BEGIN OPENSSH PRIVATE KEY-----',
    'é',
  ])('leave out %j', (v) => {
    expect(quoted(v)).toBe('');
    expect(plainOr(v)).toBe('(not shown)');
    expect(plainOr(v, '?')).toBe('?');
  });
});
