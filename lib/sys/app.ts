/** The sys function: health, init, mounts, policies, tokens, leases, OpenAPI. */
import { authRoutes } from '../auth/methods';
import type { Deps } from '../deps';
import type { RouteSet } from '../http/path';
import { createVaultApi } from '../http/vault-api';
import type { MountRef } from '../http/path';
import { auditPaths } from './paths/audit';
import { authMountPaths } from './paths/auth-mounts';
import { leasePaths } from './paths/leases';
import { mountPaths } from './paths/mounts';
import { policyPaths } from './paths/policy';
import { sealStatusPaths } from './paths/seal-status';
import { systemPaths } from './paths/system';
import { tokenPaths } from './paths/token';
import { wrappingPaths } from './paths/wrapping';

const fixed = (path: string): MountRef => ({ path, type: 'system', defaultLeaseTtl: 0, maxLeaseTtl: 0 });

export function sysRoutes(engineRoutes: () => Promise<RouteSet[]>, remotePaths?: () => Promise<Record<string, unknown>>): RouteSet[] {
  const own: RouteSet[] = [
    {
      prefix: 'sys',
      mount: fixed('sys'),
      paths: [
        ...systemPaths(async () => [...own, ...(await engineRoutes())], remotePaths),
        ...policyPaths,
        ...leasePaths,
        ...mountPaths,
        ...sealStatusPaths,
        ...wrappingPaths,
        ...auditPaths,
        ...authMountPaths,
      ],
    },
    { prefix: 'auth/token', mount: fixed('auth/token'), paths: tokenPaths },
    ...authRoutes(),
  ];
  return own;
}

/**
 * `engineRoutes` (in-process) and `remotePaths` (asked of the deployed functions) feed the
 * OpenAPI document with the other functions' paths, on demand.
 */
export function createSysApp(
  deps: Deps,
  engineRoutes: () => Promise<RouteSet[]> = async () => [],
  remotePaths?: () => Promise<Record<string, unknown>>,
) {
  return createVaultApi({ name: 'sys', deps, routes: sysRoutes(engineRoutes, remotePaths) });
}
