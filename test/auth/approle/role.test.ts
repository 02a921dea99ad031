import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../../lib/domain-errors';
import { applyRoleInput, roleData } from '../../../lib/auth/approle/role';
import { NO_TOKEN_SETTINGS } from '../../../lib/auth/token-fields';

const token = NO_TOKEN_SETTINGS;

describe('applyRoleInput', () => {
  it('creates with the reference defaults: a random role id, secret ids bound, no limits', () => {
    const r = applyRoleInput(undefined, {}, token);
    expect(r).toMatchObject({ bindSecretId: true, secretIdBoundCidrs: [], secretIdNumUses: 0, secretIdTtl: 0 });
    expect(r.roleId).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.uid).not.toBe(r.roleId);
  });

  it('updates only the given fields, keeping the role id and uid', () => {
    const first = applyRoleInput(undefined, { secretIdTtl: 60, secretIdNumUses: 2 }, token);
    const next = applyRoleInput(first, { secretIdNumUses: 5 }, token);
    expect(next).toMatchObject({ uid: first.uid, roleId: first.roleId, secretIdTtl: 60, secretIdNumUses: 5 });
  });

  it('takes a chosen role id, refuses a blank one', () => {
    expect(applyRoleInput(undefined, { roleId: 'mine' }, token).roleId).toBe('mine');
    expect(() => applyRoleInput(undefined, { roleId: ' ' }, token)).toThrow('missing role_id');
  });

  it('dedupes and checks secret_id_bound_cidrs', () => {
    expect(applyRoleInput(undefined, { secretIdBoundCidrs: ['10.0.0.0/8', ' 10.0.0.0/8', ''] }, token).secretIdBoundCidrs).toEqual([
      '10.0.0.0/8',
    ]);
    expect(() => applyRoleInput(undefined, { secretIdBoundCidrs: ['10.0.0.0/33'] }, token)).toThrow(/invalid CIDR block/);
  });

  it('needs a constraint: bind_secret_id, secret_id_bound_cidrs or token_bound_cidrs', () => {
    expect(() => applyRoleInput(undefined, { bindSecretId: false }, token)).toThrow(
      'at least one constraint should be enabled on the role',
    );
    expect(applyRoleInput(undefined, { bindSecretId: false, secretIdBoundCidrs: ['10.0.0.0/8'] }, token).bindSecretId).toBe(false);
    expect(applyRoleInput(undefined, { bindSecretId: false }, { ...token, boundCidrs: ['10.0.0.0/8'] }).bindSecretId).toBe(false);
    const bound = applyRoleInput(undefined, { bindSecretId: false, secretIdBoundCidrs: ['10.0.0.0/8'] }, token);
    expect(() => applyRoleInput(bound, { secretIdBoundCidrs: [] }, token)).toThrow(InvalidInput);
  });

  it('local_secret_ids: false on creation only; true is refused', () => {
    expect(() => applyRoleInput(undefined, { localSecretIds: true }, token)).toThrow(/not supported/);
    const r = applyRoleInput(undefined, { localSecretIds: false }, token);
    expect(() => applyRoleInput(r, { localSecretIds: false }, token)).toThrow(/only be modified during role creation/);
  });

  it('reads back in the reference names', () => {
    const r = applyRoleInput(undefined, { secretIdTtl: 60 }, { ...token, policies: ['p'], ttl: 300 });
    expect(roleData(r)).toMatchObject({
      bind_secret_id: true,
      secret_id_ttl: 60,
      secret_id_num_uses: 0,
      local_secret_ids: false,
      token_policies: ['p'],
      token_ttl: 300,
    });
    expect(roleData(r)).not.toHaveProperty('role_id');
  });
});
