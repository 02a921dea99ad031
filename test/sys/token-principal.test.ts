import { describe, expect, it } from 'vitest';
import { checkBoundCidrs, principalOf, unmapped } from '../../lib/sys/token-principal';
import type { TokenRecord } from '../../lib/sys/tokens';

const record = (extra: Partial<TokenRecord> = {}): TokenRecord => ({
  id: 'x',
  accessor: 'acc',
  policies: ['default'],
  display_name: 'approle',
  meta: { role_name: 'web' },
  num_uses: 0,
  creation_time: 0,
  creation_ttl: 0,
  expire_time: 0,
  explicit_max_ttl: 0,
  renewable: true,
  parent: '',
  path: 'auth/approle/login',
  period: 0,
  role: '',
  ...extra,
});

describe('tokens bound to CIDR blocks', () => {
  it.each([
    ['inside the block', ['10.0.0.0/8'], '10.1.2.3', true],
    ['an IPv4-mapped address inside', ['10.0.0.0/8'], '::ffff:10.1.2.3', true],
    ['outside the block', ['10.0.0.0/8'], '127.0.0.1', false],
    ['an unknown address', ['10.0.0.0/8'], undefined, false],
    ['no binding, any address', [], '203.0.113.9', true],
  ] as const)('%s', (_w, blocks, ip, ok) => {
    const run = () => checkBoundCidrs(record(blocks.length ? { bound_cidrs: [...blocks] } : {}), ip);
    if (ok) expect(run).not.toThrow();
    else expect(run).toThrow('permission denied: the token cannot be used from this address');
  });

  it('unmaps IPv4-mapped IPv6 only', () => {
    expect(unmapped('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(unmapped('::ffff:abcd')).toBe('::ffff:abcd');
  });
});

describe('the principal of a token', () => {
  it('carries metadata, and the login identity when an auth method made the token', () => {
    const p = principalOf(
      record({
        alias_mount_accessor: 'auth_approle_1',
        alias_mount_type: 'approle',
        alias_name: 'rid',
        alias_metadata: { role_name: 'web' },
      }),
    );
    expect(p).toMatchObject({
      accessor: 'acc',
      metadata: { role_name: 'web' },
      identity: { mountAccessor: 'auth_approle_1', mountType: 'approle', name: 'rid', metadata: { role_name: 'web' } },
    });
    expect(principalOf(record()).identity).toBeUndefined();
  });
});
