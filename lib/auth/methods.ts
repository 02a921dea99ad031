/** The auth methods this build serves, and the route sets of their mounts (served by the sys function). */
import type { RouteSet } from '../http/path';
import { approleMethod } from './approle/method';
import { awsMethod } from './aws/method';
import { jwtMethod } from './jwt/method';
import type { AuthMethodModule } from './method';
import { AUTH_MOUNTS, type AuthMount } from '../auth-mounts';

export const AUTH_METHODS: readonly AuthMethodModule[] = [approleMethod, awsMethod, jwtMethod];

export function authRoutes(mounts: readonly AuthMount[] = AUTH_MOUNTS): RouteSet[] {
  return mounts.flatMap((mount) => {
    const method = AUTH_METHODS.find((m) => m.type === mount.type);
    return method ? [{ prefix: mount.path, mount, paths: method.paths(mount) }] : [];
  });
}
