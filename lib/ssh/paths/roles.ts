/** roles/<name> (write, read, delete) and roles (list with key_info). */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req, type Result } from '../../http/path';
import { checkAdminKey } from '../admin-key';
import { checkName } from '../names';
import { buildRole, roleView } from '../role';
import { SshStore } from '../ssh-store';
import { roleFields, roleInput } from './role-fields';

async function listRoles(req: Req): Promise<Result> {
  const roles = await new SshStore(req.deps, req.part).listRoles();
  if (roles.length === 0) throw new NotFound();
  return {
    data: {
      keys: roles.map((r) => r.name),
      key_info: Object.fromEntries(roles.map((r) => [r.name, { key_type: r.role.keyType }])),
    },
  };
}

export const rolePaths = [
  definePath({
    pattern: 'roles',
    fields: {},
    help: "List the roles, with each role's key_type.",
    // GET answers the list too (earlier clients read it), refused where the listing is denied.
    operations: { list: listRoles, read: listRoles },
    readLists: true,
  }),
  definePath({
    pattern: 'roles/:name',
    fields: roleFields,
    help: 'Manage a role: otp, dynamic or ca.',
    exists: async ({ params, part, deps }) => (await new SshStore(deps, part).getRole(params.name ?? '')) !== undefined,
    operations: {
      write: async (req) => {
        const name = checkName(req.data.name, 'role');
        const store = new SshStore(req.deps, req.part);
        const role = buildRole(roleInput(req.data));
        if (role.keyType === 'dynamic' && !(await store.hasKey(role.key))) throw new BadRequest(`key "${role.key}" is not registered`);
        await store.putRole(name, role);
      },
      read: async (req) => {
        const role = await new SshStore(req.deps, req.part).getRole(req.data.name);
        if (!role) throw new NotFound();
        return { data: roleView(role) };
      },
      delete: async (req) => {
        const store = new SshStore(req.deps, req.part);
        // Out of config/zeroaddress first, as Vault does: a crash in between leaves a role that
        // lost its any-address grant, never a grant waiting for a new role of the same name.
        await store.removeZeroAddressRole(req.data.name);
        await store.deleteRole(req.data.name);
      },
    },
  }),
];

export const keyPaths = [
  definePath({
    pattern: 'keys/:name',
    fields: {
      name: f.pathParam({ description: 'Key name.' }),
      key: f.string({ default: '', description: 'An SSH private key with admin rights on the target hosts (required on write).' }),
    },
    help: 'Register (or replace) and delete the admin keys of dynamic roles.',
    operations: {
      write: async (req) => {
        const name = checkName(req.data.name, 'key');
        await new SshStore(req.deps, req.part).putKey(name, await checkAdminKey(req.data.key));
      },
      delete: async (req) => {
        await new SshStore(req.deps, req.part).deleteKey(req.data.name);
      },
    },
  }),
];
