/** Input quoted back in SSH error messages (lib/ssh/echo.ts): short plain values only, never a key or a blob. */
import { describe, expect, it } from 'vitest';
import { echo, plain } from '../../lib/echo';

describe('echo and plain', () => {
  it.each(['role-1', 'user@host', '10.0.0.0/8', 'fd00::1', 'a=b,c+d', 'x'.repeat(64)])('quote %j', (v) => {
    expect(echo(v)).toBe(` "${v}"`);
    expect(plain(v)).toBe(v);
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
    expect(echo(v)).toBe('');
    expect(plain(v)).toBe('(not shown)');
    expect(plain(v, '?')).toBe('?');
  });
});
