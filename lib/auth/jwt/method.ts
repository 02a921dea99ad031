/**
 * The jwt auth method (the reference's vault-plugin-auth-jwt, jwt role type only): `config`,
 * `role/<name>`, `role` (LIST) and `login {role, jwt}`.
 */
import type { AuthMethodModule } from '../method';
import { configPaths } from './paths/config';
import { loginPaths } from './paths/login';
import { rolePaths } from './paths/roles';

export const jwtMethod: AuthMethodModule = {
  type: 'jwt',
  paths: (mount) => [...configPaths, ...rolePaths, ...loginPaths(mount)],
};
