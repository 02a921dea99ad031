/** Critical options and extensions of a signed certificate (lib/ssh/cert-options.ts), as tables. */
import { describe, expect, it } from 'vitest';
import { criticalOptions, extensions } from '../../lib/ssh/cert-options';
import { role } from './role-fixture';

describe('critical options and extensions', () => {
  it.each([
    ['any requested option when the list is empty', {}, { 'force-command': 'x' }, { 'force-command': 'x' }],
    ['a listed option', { allowedCriticalOptions: ['force-command'] }, { 'force-command': 'x' }, { 'force-command': 'x' }],
    [
      'defaults when none are requested',
      { defaultCriticalOptions: { 'source-address': '10.0.0.0/8' } },
      undefined,
      { 'source-address': '10.0.0.0/8' },
    ],
    [
      'defaults, not restricted by the list',
      { allowedCriticalOptions: ['x'], defaultCriticalOptions: { 'force-command': 'y' } },
      {},
      { 'force-command': 'y' },
    ],
  ] as const)('critical options: %s', (_w, o, requested, expected) => {
    expect(criticalOptions(role(o), requested as Record<string, string> | undefined)).toEqual(expected);
  });
  it('refuses an unlisted critical option', () => {
    expect(() => criticalOptions(role({ allowedCriticalOptions: ['force-command'] }), { 'source-address': '1.2.3.4/32', a: '' })).toThrow(
      'critical options not on allowed list: a, source-address',
    );
  });

  it.each([
    ['any with *', { allowedExtensions: ['*'] }, { 'permit-pty': '' }, { 'permit-pty': '' }],
    ['a listed extension', { allowedExtensions: ['permit-pty'] }, { 'permit-pty': '' }, { 'permit-pty': '' }],
    ['defaults when none are requested', { defaultExtensions: { 'permit-pty': '' } }, undefined, { 'permit-pty': '' }],
    ['defaults, not restricted by the list', { defaultExtensions: { 'permit-user-rc': '' } }, {}, { 'permit-user-rc': '' }],
  ] as const)('extensions: %s', (_w, o, requested, expected) => {
    expect(extensions(role(o), requested as Record<string, string> | undefined)).toEqual(expected);
  });
  it.each([
    ['none when the list is empty', {}, /extensions not on allowed list: permit-pty/],
    ['an unlisted one', { allowedExtensions: ['permit-X11-forwarding'] }, /extensions not on allowed list: permit-pty/],
  ])('extensions: refuses %s', (_w, o, message) => {
    expect(() => extensions(role(o), { 'permit-pty': '' })).toThrow(message);
  });
});
