/** `role/<name>` (write, read, delete), `roles` and `role` (list). */
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { NotFound } from '../../errors';
import { roleName } from '../../cloud-common/names';
import { cloudBStore } from '../cloud-b-store';
import { flat } from '../flat';
import { checkRole, parseInlinePolicies, parseRemotePolicies, regroupRemote, type Role } from '../role';

const roleView = (r: Role) => ({
  inline_policies: r.inlinePolicies.length ? r.inlinePolicies.map((p) => ({ hash: p.hash, policy_document: p.policyDocument })) : null,
  max_ttl: r.maxTtl,
  remote_policies: r.remotePolicies.length ? r.remotePolicies : null,
  role_arn: r.roleArn,
  ttl: r.ttl,
});

async function list(req: Req) {
  const keys = await cloudBStore(req.part).roleNames();
  if (!keys.length) throw new NotFound();
  return flat({ keys });
}

const fields = {
  name: f.pathParam({ foldCase: true, description: 'The role name (case-insensitive: stored lower-cased).' }),
  remote_policies: f.list({ description: 'Existing policies to attach: "name:<policy>,type:System|Custom".' }),
  inline_policies: f.any({ description: 'JSON array of policy documents to create and attach.' }),
  role_arn: f.string({ description: 'A role to assume for STS credentials instead.' }),
  ttl: f.duration({ description: 'Seconds; 0 falls back to the mount default.' }),
  max_ttl: f.duration({ description: 'Maximum lifetime of issued credentials.' }),
};

async function write(req: Req<typeof fields>) {
  const name = roleName(req.data.name);
  const store = cloudBStore(req.part);
  const cur = await store.role(name);
  const d = req.data;
  const role: Role = {
    roleArn: d.role_arn ?? cur?.roleArn ?? '',
    remotePolicies: d.remote_policies !== undefined ? parseRemotePolicies(regroupRemote(d.remote_policies)) : (cur?.remotePolicies ?? []),
    inlinePolicies:
      d.inline_policies !== undefined && d.inline_policies !== null ? parseInlinePolicies(d.inline_policies) : (cur?.inlinePolicies ?? []),
    ttl: d.ttl ?? cur?.ttl ?? 0,
    maxTtl: d.max_ttl ?? cur?.maxTtl ?? 0,
  };
  checkRole(role);
  await store.putRole(name, role);
  if (role.roleArn && (role.ttl > 0 || role.maxTtl > 0)) {
    return flat({ warnings: ["role_arn is set: ttl and max_ttl only bound the STS token's duration (900s to 12h)"] });
  }
  if (role.ttl > req.mount.maxLeaseTtl)
    return flat({ warnings: [`ttl of ${role.ttl} exceeds the mount's max ttl of ${req.mount.maxLeaseTtl}; the latter will be used`] });
  return undefined;
}

export const rolePaths = () => [
  definePath({ pattern: 'roles', fields: {}, help: 'List the roles.', operations: { list } }),
  definePath({ pattern: 'role', fields: {}, help: 'List the roles.', operations: { list, read: list }, readLists: true }),
  definePath({
    pattern: 'role/:name',
    fields,
    help: 'Manage roles: the policies of generated users, or an assumable role.',
    exists: ({ params, part }) => cloudBStore(part).hasRole(params.name ?? ''),
    operations: {
      write,
      read: async (req) => {
        const role = await cloudBStore(req.part).role(roleName(req.data.name));
        if (!role) throw new NotFound();
        return flat(roleView(role));
      },
      delete: async (req) => {
        await cloudBStore(req.part).deleteRole(roleName(req.data.name));
      },
    },
  }),
];
