/** The cloud engines' "role required" (creds): a checked name, and a 400 for a role that does not exist. */
import { InvalidInput } from '../domain-errors';
import type { RoleRule } from '../http/role-required';
import type { Partition } from '../store/store';
import { roleName } from './names';

export function cloudRole<R>(store: (part: Partition) => { role(name: string): Promise<R | undefined> }): RoleRule<R> {
  return {
    check: roleName,
    load: (req, name) => store(req.part).role(name),
    unknown: (name) => new InvalidInput(`role "${name}" does not exist`),
  };
}
