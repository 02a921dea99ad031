/** The resource manager calls: role definitions (lookup) and role assignments (create, delete). */
import { CloudError } from '../cloud-common/cloud-error';
import type { Settings } from './config';
import { ignoreNotFound } from './graph';
import { odata, rest } from './rest';

const API = 'api-version=2022-04-01';
const AUTH = 'providers/Microsoft.Authorization';

export interface RoleDefinition {
  id: string;
  name: string;
  properties: { roleName: string };
}

/** An ARM id path: one leading slash, no trailing one, no query. */
function idPath(id: string): string {
  return (
    '/' +
    id
      .replace(/^\/+|\/+$/g, '')
      .split('/')
      .map(encodeURIComponent)
      .join('/')
  );
}

export async function getRoleDefinition(s: Settings, roleId: string): Promise<RoleDefinition> {
  const r = await rest<RoleDefinition>(s, { api: 'resourceManager', method: 'GET', path: `${idPath(roleId)}?${API}` });
  if (!r?.id || !r.properties?.roleName)
    throw new CloudError('server', 502, 'the resource manager answered a role definition without an id');
  return r;
}

export async function findRoleDefinitions(s: Settings, scope: string, roleName: string): Promise<RoleDefinition[]> {
  const filter = encodeURIComponent(`roleName eq ${odata(roleName)}`);
  const r = await rest<{ value?: RoleDefinition[] }>(s, {
    api: 'resourceManager',
    method: 'GET',
    path: `${idPath(scope)}/${AUTH}/roleDefinitions?$filter=${filter}&${API}`,
  });
  return (r?.value ?? []).filter((d) => d.properties?.roleName === roleName);
}

export const assignmentId = (scope: string, name: string) => `${idPath(scope)}/${AUTH}/roleAssignments/${name}`;

export async function createRoleAssignment(s: Settings, id: string, roleDefinitionId: string, principalId: string): Promise<void> {
  const body = { properties: { roleDefinitionId, principalId, principalType: 'ServicePrincipal' } };
  await rest(s, { api: 'resourceManager', method: 'PUT', path: `${idPath(id)}?${API}`, body }).catch((e: unknown) => {
    // A retried create of the same assignment finds it there: that is success.
    if (e instanceof CloudError && e.code === 'RoleAssignmentExists') return;
    throw e;
  });
}

export async function deleteRoleAssignment(s: Settings, id: string): Promise<void> {
  await rest(s, { api: 'resourceManager', method: 'DELETE', path: `${idPath(id)}?${API}` }).catch(ignoreNotFound);
}
