/**
 * An approle role written and read back: the reference's create/update semantics (only the given
 * fields change; a new role gets a random role id and binds secret ids by default) and its rule
 * that a role needs at least one constraint.
 */
import { InvalidInput } from '../../domain-errors';
import { validateCidrs } from '../../net/cidr';
import { tokenSettingsData, type TokenSettings } from '../token-fields';
import type { AppRole } from './approle-store';
import { checkChosenId, randomId } from './ids';

export type RoleInput = {
  roleId?: string | undefined;
  bindSecretId?: boolean | undefined;
  secretIdBoundCidrs?: string[] | undefined;
  secretIdNumUses?: number | undefined;
  secretIdTtl?: number | undefined;
  localSecretIds?: boolean | undefined;
};

/** The role after a write: `current` undefined creates one. `token` is the merged token settings. */
export function applyRoleInput(current: AppRole | undefined, input: RoleInput, token: TokenSettings): AppRole {
  if (input.localSecretIds !== undefined) {
    if (current) throw new InvalidInput('local_secret_ids can only be modified during role creation');
    if (input.localSecretIds)
      throw new InvalidInput('local_secret_ids is not supported: Latchkey has one cluster, every secret id is global');
  }
  const role: AppRole = current
    ? { ...current, token }
    : { uid: randomId(), roleId: '', bindSecretId: true, secretIdBoundCidrs: [], secretIdNumUses: 0, secretIdTtl: 0, token };
  if (input.roleId !== undefined) role.roleId = checkChosenId(input.roleId, 'role_id');
  else if (!current) role.roleId = randomId();
  if (input.bindSecretId !== undefined) role.bindSecretId = input.bindSecretId;
  if (input.secretIdBoundCidrs !== undefined) role.secretIdBoundCidrs = cidrList(input.secretIdBoundCidrs, 'secret_id_bound_cidrs');
  if (input.secretIdNumUses !== undefined) role.secretIdNumUses = input.secretIdNumUses;
  if (input.secretIdTtl !== undefined) role.secretIdTtl = input.secretIdTtl;
  if (role.secretIdNumUses < 0) throw new InvalidInput('secret_id_num_uses cannot be negative');
  if (!role.bindSecretId && role.secretIdBoundCidrs.length === 0 && role.token.boundCidrs.length === 0) {
    throw new InvalidInput('at least one constraint should be enabled on the role');
  }
  return role;
}

export function cidrList(blocks: string[], field: string): string[] {
  return validateCidrs([...new Set(blocks.map((b) => b.trim()).filter(Boolean))], field);
}

/** The role as the reference reads it back. */
export function roleData(role: AppRole): Record<string, unknown> {
  return {
    bind_secret_id: role.bindSecretId,
    secret_id_bound_cidrs: role.secretIdBoundCidrs,
    secret_id_num_uses: role.secretIdNumUses,
    secret_id_ttl: role.secretIdTtl,
    local_secret_ids: false,
    ...tokenSettingsData(role.token),
  };
}
