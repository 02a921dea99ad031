/**
 * The rules for an auth method's role name (`auth/<mount>/role/<name>`, and a login's `role`).
 * AppRole and AWS fold names to lower case, as Vault does: their path parameters are declared
 * `foldCase`, so the name is folded before policies see the path (lib/http/canonical-path.ts) and
 * `role/PROD` is `role/prod` for a deny as for the store. JWT keeps a name's case, as Vault does,
 * so `role/PROD` and `role/prod` are two roles, each under its own policy path.
 */
import { InvalidInput } from '../domain-errors';

const NAME = /^[A-Za-z0-9_]([A-Za-z0-9_.@+=,-]{0,126}[A-Za-z0-9_.@+=,-])?$/;
const INVALID = 'invalid role name: 1 to 128 of letters, digits and _ . @ + = , - (starting with a letter, digit or _)';

/** A role name of a method that stores names lower-cased (AppRole, AWS): folded, then checked. */
export function authRoleName(name: string): string {
  const folded = name.toLowerCase();
  if (!NAME.test(folded)) throw new InvalidInput(INVALID);
  return folded;
}

/** A role name of a method that keeps its case (JWT): checked as given. */
export function caseKeptRoleName(name: string): string {
  if (!NAME.test(name)) throw new InvalidInput(INVALID);
  return name;
}

/** The role a login names in its body (AppRole, AWS): trimmed and folded, then checked. */
export function loginRoleName(raw: string): string {
  return authRoleName(raw.trim());
}
