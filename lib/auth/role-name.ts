/**
 * The one rule for an auth method's role name in a path (`auth/<mount>/role/<name>`): lower case
 * only, refused otherwise rather than folded. Policies are checked on the path as sent, so a name
 * folded after the check would let `role/PROD` reach what a deny on `role/prod` protects. The
 * reference stores names lower-cased; clients that send lower-case names see no difference.
 * A name given in a login body (not a policy path) may be folded: `loginRoleName`.
 */
import { InvalidInput } from '../domain-errors';

const NAME = /^[a-z0-9_]([a-z0-9_.@+=,-]{0,126}[a-z0-9_.@+=,-])?$/;

export function authRoleName(name: string): string {
  if (/[A-Z]/.test(name))
    throw new InvalidInput('role names are lower case: the reference stores them lower-cased, so ask for the lower-case name');
  if (!NAME.test(name))
    throw new InvalidInput('invalid role name: 1 to 128 of a-z, 0-9 and _ . @ + = , - (starting with a letter, digit or _)');
  return name;
}

/** The role a login names in its body: folded to lower case as the reference does, then checked. */
export function loginRoleName(raw: string): string {
  return authRoleName(raw.trim().toLowerCase());
}
