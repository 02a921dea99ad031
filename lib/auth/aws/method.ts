/**
 * The aws auth method, auth_type iam: a workload proves its IAM identity with a signed
 * sts:GetCallerIdentity request, which the mount sends to its own STS endpoint.
 */
import type { AuthMethodModule } from '../method';
import { configPaths } from './paths/config';
import { loginPaths } from './paths/login';
import { rolePaths } from './paths/roles';

export const awsMethod: AuthMethodModule = {
  type: 'aws',
  paths: (mount) => [...configPaths, ...rolePaths, ...loginPaths(mount)],
};
