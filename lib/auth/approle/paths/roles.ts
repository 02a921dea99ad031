/** role (LIST), role/<name> (create/update, read, delete), role/<name>/role-id (read, write). */
import { NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import type { FieldValues } from '../../../http/fields';
import { definePath, type ReqContext } from '../../../http/path';
import { roleListPath } from '../../role-list';
import { mergeTokenSettings, tokenFields } from '../../token-fields';
import { checkRoleName } from '../ids';
import { applyRoleInput, roleData } from '../role';
import { deleteRole, saveRole } from '../roles';
import { approleStore } from './role-access';

const roleName = f.pathParam({ foldCase: true, description: 'the role name (case-insensitive: stored lower-cased)' });

export const roleFields = {
  role_name: roleName,
  bind_secret_id: f.bool({ description: 'logins must present a secret id (default true)' }),
  secret_id_bound_cidrs: f.list({ compareAs: 'address', description: 'CIDR blocks logins may come from' }),
  bound_cidr_list: f.list({
    compareAs: 'address',
    aliasOf: 'secret_id_bound_cidrs',
    description: 'deprecated alias of secret_id_bound_cidrs',
  }),
  secret_id_num_uses: f.int({ min: 0, description: 'uses of each secret id (0: unlimited)' }),
  secret_id_ttl: f.duration({ description: 'lifetime of each secret id (0: no expiry)' }),
  local_secret_ids: f.bool({ description: 'only false: every secret id is global' }),
  role_id: f.string({ description: 'a role id of your choice (default: random)' }),
  period: f.duration({ aliasOf: 'token_period', description: 'deprecated alias of token_period' }),
  ...tokenFields,
};

export type RoleWrite = Partial<FieldValues<typeof roleFields>> & { role_name: string };

/** A role write (the whole role, or one field from its sub-path when `mustExist`): only the given fields change. */
export async function writeRole(req: ReqContext, d: RoleWrite, mustExist: boolean): Promise<void> {
  const name = checkRoleName(d.role_name);
  const store = approleStore(req);
  const current = await store.role(name);
  if (!current && mustExist) throw new NotFound(`role "${name}" does not exist`);
  const token = mergeTokenSettings(current?.value.token, { ...d, token_period: d.token_period ?? d.period });
  const role = applyRoleInput(
    current?.value,
    {
      roleId: d.role_id,
      bindSecretId: d.bind_secret_id,
      secretIdBoundCidrs: d.secret_id_bound_cidrs ?? d.bound_cidr_list,
      secretIdNumUses: d.secret_id_num_uses,
      secretIdTtl: d.secret_id_ttl,
      localSecretIds: d.local_secret_ids,
    },
    token,
  );
  await saveRole(store, name, current, role, req.deps.now());
}

export const rolePaths = [
  roleListPath('role', (req) => approleStore(req).roleNames()),
  definePath({
    pattern: 'role/:role_name',
    fields: roleFields,
    help: 'An approle role: what its secret ids allow and which tokens its logins get.',
    exists: async ({ params, part, deps }) =>
      (await approleStore({ part, deps }).role(checkRoleName(params.role_name ?? ''))) !== undefined,
    operations: {
      read: async (req) => {
        const item = await approleStore(req).role(checkRoleName(req.data.role_name));
        if (!item) throw new NotFound();
        return { data: roleData(item.value) };
      },
      write: async (req) => {
        await writeRole(req, req.data, false);
      },
      delete: async (req) => {
        await deleteRole(approleStore(req), checkRoleName(req.data.role_name));
      },
    },
  }),
  definePath({
    pattern: 'role/:role_name/role-id',
    fields: {
      role_name: roleName,
      role_id: f.string({ description: 'the new role id (unique across the roles)' }),
    },
    help: "A role's role id: read it, or set one of your choice.",
    operations: {
      read: async (req) => {
        const item = await approleStore(req).role(checkRoleName(req.data.role_name));
        if (!item) throw new NotFound();
        return { data: { role_id: item.value.roleId } };
      },
      write: async (req) => {
        const name = checkRoleName(req.data.role_name);
        const store = approleStore(req);
        const current = await store.role(name);
        if (!current) throw new NotFound(`role "${name}" does not exist`);
        const role = applyRoleInput(current.value, { roleId: req.data.role_id ?? '' }, current.value.token);
        await saveRole(store, name, current, role, req.deps.now());
      },
    },
  }),
];
