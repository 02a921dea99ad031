/**
 * Role names of the cloud engines: a word, dots and dashes inside, stored lower-cased as the
 * Vault plugins store them. The paths that name a role declare it `foldCase`, so the name is
 * folded before policies see the path (lib/http/canonical-path.ts): `roles/PROD` is `roles/prod`
 * for a deny as for the store, never a way past it.
 */
import { InvalidInput } from '../domain-errors';

const NAME = /^\w(?:[\w.-]{0,126}\w)?$/;

export function roleName(raw: string): string {
  if (!NAME.test(raw))
    throw new InvalidInput(`invalid role name "${raw.slice(0, 64)}": use letters, digits, "_", "-" and "." (at most 128)`);
  return raw.toLowerCase();
}
