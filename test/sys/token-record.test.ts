/** A new token's first record (lib/sys/token-record.ts): the input's settings, its times, and the optional parts only when given. */
import { describe, expect, it } from 'vitest';
import { newTokenRecord, type CreateTokenInput } from '../../lib/sys/token-record';

const input: CreateTokenInput = {
  policies: ['default'],
  display_name: 'token-x',
  meta: { team: 'a' },
  num_uses: 2,
  ttl: 3600,
  explicit_max_ttl: 7200,
  renewable: true,
  parent: 'parent-accessor',
  path: 'auth/token/create',
};
const made = { id: 'ab12', accessor: 'acc', now: 1000 };

describe('newTokenRecord', () => {
  it('carries the settings, created now and expiring after its TTL', () => {
    expect(newTokenRecord(input, made)).toEqual({
      id: 'ab12',
      accessor: 'acc',
      policies: ['default'],
      display_name: 'token-x',
      meta: { team: 'a' },
      num_uses: 2,
      creation_time: 1000,
      creation_ttl: 3600,
      expire_time: 4600,
      explicit_max_ttl: 7200,
      renewable: true,
      parent: 'parent-accessor',
      path: 'auth/token/create',
      period: 0,
      role: '',
    });
  });

  it('never expires with no TTL', () => {
    expect(newTokenRecord({ ...input, ttl: 0 }, made).expire_time).toBe(0);
  });

  it('keeps bound CIDRs only when there are some, and the login identity only when given', () => {
    expect(newTokenRecord({ ...input, bound_cidrs: [] }, made)).not.toHaveProperty('bound_cidrs');
    const alias = { mount_accessor: 'auth_jwt_1', mount_type: 'jwt', name: 'alice', metadata: { k: 'v' } };
    const r = newTokenRecord({ ...input, bound_cidrs: ['10.0.0.0/8'], alias, period: 60, role: 'ci' }, made);
    expect(r).toMatchObject({
      bound_cidrs: ['10.0.0.0/8'],
      alias_mount_accessor: 'auth_jwt_1',
      alias_mount_type: 'jwt',
      alias_name: 'alice',
      alias_metadata: { k: 'v' },
      period: 60,
      role: 'ci',
    });
  });
});
