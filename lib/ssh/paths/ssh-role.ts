/** The SSH engine's "role required" (sign, issue, creds): an unknown role is a 400 naming it. */
import { BadRequest } from '../../errors';
import type { RoleRule } from '../../http/role-required';
import type { Role } from '../role';
import { SshStore } from '../ssh-store';

export const sshRole: RoleRule<Role> = {
  load: (req, name) => new SshStore(req.deps, req.part).cachedRole(name),
  unknown: (name) => new BadRequest(`unknown role: ${name.slice(0, 128)}`),
};
