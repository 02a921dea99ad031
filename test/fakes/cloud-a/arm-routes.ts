/** The resource manager routes of the cloud-A fake: role definitions and role assignments. */
import { graphError as armError, type Ctx, type Reply } from './server';
import { ROLE_ASSIGNMENTS } from './state';

const DEFS = 'providers/Microsoft.Authorization/roleDefinitions';

export function armRoute(ctx: Ctx): { op: string; run: () => Reply } {
  const { state: s, method, body } = ctx;
  const path = decodeURIComponent(ctx.url.pathname).replace(/\/+$/, '');
  if (!ctx.url.searchParams.get('api-version'))
    return {
      op: 'arm',
      run: () =>
        armError(400, 'MissingApiVersionParameter', 'The api-version query parameter (?api-version=) is required for all requests.'),
    };
  const defList = new RegExp(`^(.*)/${DEFS}$`, 'i').exec(path);
  if (defList && method === 'GET') {
    return {
      op: 'listRoleDefinitions',
      run: () => {
        if (!s.scopeExists(defList[1]!)) return armError(404, 'ResourceGroupNotFound', `The scope '${defList[1]!}' could not be found.`);
        const m = /^roleName eq '((?:[^']|'')*)'$/.exec(ctx.url.searchParams.get('$filter') ?? '');
        const name = m?.[1]?.replace(/''/g, "'");
        return { status: 200, body: { value: [...s.roleDefinitions.values()].filter((d) => !name || d.properties.roleName === name) } };
      },
    };
  }
  if (new RegExp(`/${DEFS}/[^/]+$`, 'i').test(path) && method === 'GET') {
    return {
      op: 'getRoleDefinition',
      run: () => {
        const d = s.roleDefinitions.get(path.toLowerCase());
        return d ? { status: 200, body: d } : armError(404, 'RoleDefinitionDoesNotExist', 'The specified role definition does not exist.');
      },
    };
  }
  const asg = new RegExp(`^(.*)/${ROLE_ASSIGNMENTS}/([^/]+)$`, 'i').exec(path);
  if (asg && method === 'PUT') return { op: 'createRoleAssignment', run: () => createAssignment(ctx, asg[1]!, asg[2]!, path) };
  if (asg && method === 'DELETE') {
    return {
      op: 'deleteRoleAssignment',
      run: () => {
        const a = s.roleAssignments.get(path.toLowerCase());
        if (!a) return { status: 204 };
        s.roleAssignments.delete(path.toLowerCase());
        return { status: 200, body: a };
      },
    };
  }
  const asgList = new RegExp(`^(.*)/${ROLE_ASSIGNMENTS}$`, 'i').exec(path);
  if (asgList && method === 'GET') {
    return {
      op: 'listRoleAssignments',
      run: () => ({
        status: 200,
        body: { value: [...s.roleAssignments.values()].filter((a) => a.properties.scope.toLowerCase() === asgList[1]!.toLowerCase()) },
      }),
    };
  }
  void body;
  return { op: 'unknown', run: () => armError(404, 'InvalidResourceType', `The resource type could not be found for '${path}'.`) };
}

function createAssignment(ctx: Ctx, scope: string, name: string, id: string): Reply {
  const s = ctx.state;
  const props = ((ctx.body.properties ?? {}) as Record<string, unknown>) ?? {};
  if (!s.scopeExists(scope)) return armError(404, 'ResourceGroupNotFound', `The scope '${scope}' could not be found.`);
  if (!/^[0-9a-f-]{36}$/i.test(name))
    return armError(
      400,
      'InvalidRoleAssignmentId',
      `The role assignment ID '${name}' is not valid. The role assignment ID must be a GUID.`,
    );
  const roleDefinitionId = String(props.roleDefinitionId ?? '');
  if (!s.roleDefinitions.has(roleDefinitionId.toLowerCase()))
    return armError(400, 'RoleDefinitionDoesNotExist', 'The specified role definition does not exist.');
  const principalId = String(props.principalId ?? '');
  if (!s.servicePrincipals.has(principalId)) {
    return armError(400, 'PrincipalNotFound', `Principal ${principalId.replace(/-/g, '')} does not exist in the directory ${s.tenantId}.`);
  }
  const existing = s.roleAssignments.get(id.toLowerCase());
  if (existing) return { status: 201, body: existing };
  const dup = [...s.roleAssignments.values()].find(
    (a) =>
      a.properties.principalId === principalId &&
      a.properties.roleDefinitionId.toLowerCase() === roleDefinitionId.toLowerCase() &&
      a.properties.scope.toLowerCase() === scope.toLowerCase(),
  );
  if (dup) return armError(409, 'RoleAssignmentExists', 'The role assignment already exists.');
  const a = {
    id,
    name,
    type: 'Microsoft.Authorization/roleAssignments',
    properties: { roleDefinitionId, principalId, principalType: String(props.principalType ?? 'ServicePrincipal'), scope },
  };
  s.roleAssignments.set(id.toLowerCase(), a);
  return { status: 201, body: a };
}
