/**
 * Cloud-A roles: parsing `cloud_a_roles` / `cloud_a_groups` (JSON arrays, as strings or
 * arrays), and checking every referenced role definition, group and application exists.
 */
import { InvalidInput } from '../domain-errors';
import { CloudError, toDomainError } from '../cloud-common/cloud-error';
import type { Settings } from './config';
import { findRoleDefinitions, getRoleDefinition } from './arm';
import { findGroups, getApplication, getGroup } from './graph';
import { BLANK, parseJsonText } from '../cloud-common/json-text';

export type AssignedRole = {
  roleName: string;
  roleId: string;
  scope: string;
};

export type JoinedGroup = {
  groupName: string;
  objectId: string;
};

export type Role = {
  cloudARoles: AssignedRole[];
  cloudAGroups: JoinedGroup[];
  applicationObjectId: string;
  applicationId: string;
  ttl: number;
  maxTtl: number;
};

const MAX_ENTRIES = 50;
const SCOPE = /^\/[A-Za-z0-9_.()\-/]{0,500}$/;
const ID = /^[A-Za-z0-9_.()\-/]{1,500}$/;

function jsonArray(field: string, raw: unknown): Record<string, unknown>[] {
  const v = parseJsonText(raw, `error parsing ${field}: not valid JSON`, field);
  if (v === BLANK) return [];
  if (!Array.isArray(v)) throw new InvalidInput(`error parsing ${field}: expected a JSON array of objects`);
  if (v.length > MAX_ENTRIES) throw new InvalidInput(`${field}: at most ${MAX_ENTRIES} entries`);
  return v.map((e, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e))
      throw new InvalidInput(`error parsing ${field}: entry ${i} is not an object`);
    return e as Record<string, unknown>;
  });
}

function text(field: string, i: number, e: Record<string, unknown>, key: string, pattern: RegExp): string {
  const v = e[key];
  if (v === undefined || v === null || v === '') return '';
  if (typeof v !== 'string' || !pattern.test(v)) throw new InvalidInput(`${field}: entry ${i} has an invalid "${key}"`);
  return v;
}

/** `field`: the name the client used (`cloud_a_roles` or the reference plugin's `azure_roles`), for messages. */
export function parseRoles(raw: unknown, field = 'cloud_a_roles'): AssignedRole[] {
  return jsonArray(field, raw).map((e, i) => {
    const scope = text(field, i, e, 'scope', SCOPE);
    const roleName = text(field, i, e, 'role_name', /^[^\u0000-\u001f]{1,256}$/);
    const roleId = text(field, i, e, 'role_id', ID);
    if (!scope) throw new InvalidInput(`${field}: entry ${i} needs a "scope"`);
    if (!roleName && !roleId) throw new InvalidInput(`${field}: entry ${i} needs "role_name" or "role_id"`);
    return { roleName, roleId, scope };
  });
}

/** `field`: `cloud_a_groups` or the reference plugin's `azure_groups`. */
export function parseGroups(raw: unknown, field = 'cloud_a_groups'): JoinedGroup[] {
  return jsonArray(field, raw).map((e, i) => {
    const groupName = text(field, i, e, 'group_name', /^[^\u0000-\u001f]{1,256}$/);
    const objectId = text(field, i, e, 'object_id', /^[A-Za-z0-9-]{1,64}$/);
    if (!groupName && !objectId) throw new InvalidInput(`${field}: entry ${i} needs "group_name" or "object_id"`);
    return { groupName, objectId };
  });
}

const missing = (e: unknown) =>
  e instanceof CloudError && (e.kind === 'not-found' || e.code === 'RoleDefinitionDoesNotExist' || e.code === 'InvalidRoleDefinitionId');

async function resolveRole(s: Settings, r: AssignedRole): Promise<AssignedRole> {
  if (r.roleId) {
    const def = await getRoleDefinition(s, r.roleId).catch((e: unknown) => {
      throw missing(e) ? new InvalidInput(`no role found for role_id: '${r.roleId}'`) : e;
    });
    return { ...r, roleId: def.id, roleName: def.properties.roleName };
  }
  const defs = await findRoleDefinitions(s, r.scope, r.roleName).catch((e: unknown) => {
    throw missing(e) ? new InvalidInput(`scope '${r.scope}' does not exist`) : e;
  });
  if (defs.length === 0) throw new InvalidInput(`no role found for role_name: '${r.roleName}'`);
  if (defs.length > 1) throw new InvalidInput(`multiple matches found for role_name: '${r.roleName}'. Specify role by ID instead.`);
  return { ...r, roleId: defs[0]!.id };
}

async function resolveGroup(s: Settings, g: JoinedGroup): Promise<JoinedGroup> {
  if (g.objectId) {
    const def = await getGroup(s, g.objectId).catch((e: unknown) => {
      throw missing(e) ? new InvalidInput(`no group found for object_id: '${g.objectId}'`) : e;
    });
    return { objectId: def.id, groupName: def.displayName ?? '' };
  }
  const defs = await findGroups(s, g.groupName);
  if (defs.length === 0) throw new InvalidInput(`no group found for group_name: '${g.groupName}'`);
  if (defs.length > 1)
    throw new InvalidInput(`multiple matches found for group_name: '${g.groupName}'. Specify group by object_id instead.`);
  return { objectId: defs[0]!.id, groupName: g.groupName };
}

/** Looks every reference up in the cloud; 400 for what does not exist or is given twice. */
export async function checkRole(s: Settings, role: Role): Promise<Role> {
  try {
    if (role.applicationObjectId) {
      const app = await getApplication(s, role.applicationObjectId).catch((e: unknown) => {
        throw missing(e) ? new InvalidInput(`no application found for application_object_id: '${role.applicationObjectId}'`) : e;
      });
      return { ...role, applicationId: app.appId };
    }
    const roles: AssignedRole[] = [];
    for (const r of role.cloudARoles) roles.push(await resolveRole(s, r));
    const groups: JoinedGroup[] = [];
    for (const g of role.cloudAGroups) groups.push(await resolveGroup(s, g));
    const dupRole = roles.find((r, i) => roles.findIndex((x) => x.roleId === r.roleId && x.scope === r.scope) !== i);
    if (dupRole) throw new InvalidInput(`duplicate role_id and scope: '${dupRole.roleId}', '${dupRole.scope}'`);
    const dupGroup = groups.find((g, i) => groups.findIndex((x) => x.objectId === g.objectId) !== i);
    if (dupGroup) throw new InvalidInput(`duplicate object_id '${dupGroup.objectId}'`);
    return { ...role, applicationId: '', cloudARoles: roles, cloudAGroups: groups };
  } catch (e) {
    throw toDomainError(e, 'checking the role against the cloud');
  }
}
