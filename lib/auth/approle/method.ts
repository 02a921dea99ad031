/**
 * The approle auth method (the reference's `auth/approle` API): roles, their role ids and
 * secret ids, and the login that trades a role id and a secret id for a token.
 */
import type { AuthMethodModule } from '../method';
import { loginPath } from './paths/login';
import { roleFieldPaths } from './paths/role-fields';
import { rolePaths } from './paths/roles';
import { secretIdPaths } from './paths/secret-ids';

export const approleMethod: AuthMethodModule = {
  type: 'approle',
  paths: (mount) => [...rolePaths, ...roleFieldPaths, ...secretIdPaths, loginPath(mount)],
};
