/** `roles/<name>` (write, read, delete) and `roles` (list). */
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { BadRequest, NotFound } from '../../errors';
import type { EnvReader } from '../../cloud-common/env-settings';
import { roleName } from '../../cloud-common/names';
import { cloudAStore } from '../cloud-a-store';
import { effectiveSettings } from '../config';
import { checkRole, parseGroups, parseRoles, type Role } from '../role';

const fields = {
  name: f.pathParam({ foldCase: true, description: 'The role name (case-insensitive: stored lower-cased).' }),
  cloud_a_roles: f.any({ description: 'JSON array of {scope, role_name | role_id} to assign to each generated principal.' }),
  cloud_a_groups: f.any({ description: 'JSON array of {group_name | object_id} each generated principal joins.' }),
  azure_roles: f.any({ description: "Vault's Azure secrets engine's name for cloud_a_roles (an alias; give one of the two)." }),
  azure_groups: f.any({ description: "Vault's Azure secrets engine's name for cloud_a_groups (an alias; give one of the two)." }),
  application_object_id: f.string({ description: 'An existing application: creds add a password to it instead.' }),
  ttl: f.duration({ description: 'Default lease TTL.' }),
  max_ttl: f.duration({ description: 'Maximum lease TTL.' }),
};
type R = Req<typeof fields>;

/** Read back under both names: Latchkey's and the reference plugin's (`azure_roles`, `azure_groups`). */
function roleData(r: Role) {
  const roles = r.cloudARoles.map((x) => ({ role_name: x.roleName, role_id: x.roleId, scope: x.scope }));
  const groups = r.cloudAGroups.map((g) => ({ group_name: g.groupName, object_id: g.objectId }));
  return {
    ttl: r.ttl,
    max_ttl: r.maxTtl,
    cloud_a_roles: roles,
    cloud_a_groups: groups,
    azure_roles: roles,
    azure_groups: groups,
    application_object_id: r.applicationObjectId,
  };
}

/** The value given under a field or its alias (never both): the name used, for messages, and the value. */
function aliased(d: R['data'], name: 'cloud_a_roles' | 'cloud_a_groups', alias: 'azure_roles' | 'azure_groups'): [string, unknown] {
  if (d[name] !== undefined && d[alias] !== undefined) throw new BadRequest(`${alias} is an alias of ${name}: give one of them, not both`);
  return d[alias] !== undefined ? [alias, d[alias]] : [name, d[name]];
}

/** The role as written: given fields over the stored role, checked locally. */
function merged(d: R['data'], cur: Role | undefined): Role {
  const [rolesField, rolesRaw] = aliased(d, 'cloud_a_roles', 'azure_roles');
  const [groupsField, groupsRaw] = aliased(d, 'cloud_a_groups', 'azure_groups');
  const role: Role = {
    cloudARoles: rolesRaw !== undefined ? parseRoles(rolesRaw, rolesField) : (cur?.cloudARoles ?? []),
    cloudAGroups: groupsRaw !== undefined ? parseGroups(groupsRaw, groupsField) : (cur?.cloudAGroups ?? []),
    applicationObjectId: d.application_object_id ?? cur?.applicationObjectId ?? '',
    applicationId: cur?.applicationId ?? '',
    ttl: d.ttl ?? cur?.ttl ?? 0,
    maxTtl: d.max_ttl ?? cur?.maxTtl ?? 0,
  };
  if (role.applicationObjectId && !/^[A-Za-z0-9-]{1,64}$/.test(role.applicationObjectId))
    throw new BadRequest('application_object_id is not an object id');
  if (role.maxTtl && role.ttl > role.maxTtl) throw new BadRequest('ttl cannot be greater than max_ttl');
  if (!role.applicationObjectId && role.cloudARoles.length === 0)
    throw new BadRequest('either application_object_id or cloud_a_roles must be provided');
  return role;
}

async function write(req: R, readEnv: EnvReader) {
  const name = roleName(req.data.name);
  const store = cloudAStore(req.part);
  const role = merged(req.data, await store.role(name));
  const settings = await effectiveSettings(req.deps, await store.config(), readEnv);
  const checked = await checkRole(settings, role);
  await store.putRole(name, checked);
  const warnings: string[] = [];
  if (role.applicationObjectId && (role.cloudARoles.length || role.cloudAGroups.length)) {
    warnings.push('cloud_a_roles and cloud_a_groups are ignored when application_object_id is set');
  }
  if (role.ttl > req.mount.maxLeaseTtl)
    warnings.push(`ttl of ${role.ttl} exceeds the mount's max ttl of ${req.mount.maxLeaseTtl}; the latter will be used`);
  return warnings.length ? { data: roleData(checked), warnings } : undefined;
}

export const rolePaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'roles',
    fields: {},
    help: 'List the roles.',
    operations: {
      list: async (req) => {
        const keys = await cloudAStore(req.part).roleNames();
        if (!keys.length) throw new NotFound();
        return { data: { keys } };
      },
    },
  }),
  definePath({
    pattern: 'roles/:name',
    fields,
    help: 'Manage roles: what each generated service principal may do.',
    exists: ({ params, part }) => cloudAStore(part).hasRole(params.name ?? ''),
    operations: {
      write: (req) => write(req, readEnv),
      read: async (req) => {
        const role = await cloudAStore(req.part).role(roleName(req.data.name));
        if (!role) throw new NotFound();
        return { data: roleData(role) };
      },
      delete: async (req) => {
        await cloudAStore(req.part).deleteRole(roleName(req.data.name));
      },
    },
  }),
];
