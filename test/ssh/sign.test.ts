/** The key id and the ttl of a signed certificate (lib/ssh/sign.ts), as tables. */
import { describe, expect, it } from 'vitest';
import { certKeyId, certTtl } from '../../lib/ssh/sign';
import { ctx, role } from './role-fixture';

describe('key id', () => {
  const key = { type: 'ssh-ed25519', bits: 256, blob: Buffer.from('k') };
  const hash = '1d2ee8c3fdc5e47297f6f2cbb66de2db3d1fd4faaa5c69b16db8ab8b7e12b0d9'.length;
  it.each([
    ['default', {}, '', /^vault-token-ops-[0-9a-f]{64}$/],
    [
      'format with every variable',
      { keyIdFormat: '{{role_name}}/{{token_display_name}}/{{public_key_hash}}' },
      '',
      /^r\/token-ops\/[0-9a-f]{64}$/,
    ],
    ['requested when allowed', { allowUserKeyIds: true }, 'mine', /^mine$/],
  ] as const)('%s', (_w, o, requested, expected) => {
    expect(certKeyId(role(o), requested, key, ctx)).toMatch(expected);
    expect(hash).toBe(64);
  });
  it('refuses a requested key id when the role does not allow it', () => {
    expect(() => certKeyId(role({}), 'mine', key, ctx)).toThrow('setting key_id is not allowed by role');
  });
});

describe('ttl', () => {
  it.each([
    ['requested', {}, 600, 600],
    ['role ttl by default', { ttl: 900 }, undefined, 900],
    ['mount default by default', {}, undefined, 3600],
    ['defaulted ttl clamped to max_ttl', { maxTtl: 60 }, undefined, 60],
    ['requested up to the mount max', {}, 7200, 7200],
  ] as const)('%s', (_w, o, requested, expected) => {
    expect(certTtl(role(o), requested, ctx)).toBe(expected);
  });
  it.each([
    [{ maxTtl: 60 }, 61, /ttl is larger than maximum allowed \(60\)/],
    [{}, 7201, /ttl is larger than maximum allowed \(7200\)/],
  ])('refuses an explicit ttl above max_ttl', (o, requested, message) => {
    expect(() => certTtl(role(o), requested, ctx)).toThrow(message);
  });
});
