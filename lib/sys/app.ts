/** The sys function: health, init, mounts, policies, capabilities, tokens, leases, server status, OpenAPI. */
import type { Deps } from '../deps';
import type { RouteSet } from '../http/path';
import { createVaultApi } from '../http/vault-api';
import type { MountRef } from '../http/path';
import { auditPaths } from './paths/audit';
import { authMountPaths } from './paths/auth-mounts';
import { capabilityPaths } from './paths/capabilities';
import { leasePaths } from './paths/leases';
import { metricsPaths } from './paths/metrics';
import { mountPaths } from './paths/mounts';
import { policyPaths } from './paths/policy';
import { sealStatusPaths } from './paths/seal-status';
import { serverInfoPaths } from './paths/server-info';
import { systemPaths } from './paths/system';
import { tokenPaths } from './paths/token';
import { uiMountPaths } from './paths/ui-mounts';
import { wrappingPaths } from './paths/wrapping';

const fixed = (path: string): MountRef => ({ path, type: 'system', defaultLeaseTtl: 0, maxLeaseTtl: 0 });

/** What the sys function serves besides its own paths, wired in by the composition (lib/sys-function.ts). */
export interface SysOptions {
  /** The auth method mounts' route sets (lib/auth/methods.ts), served under auth/<path>. */
  auth?: RouteSet[];
  /** For the OpenAPI document: the other functions' paths, in-process. */
  engineRoutes?: () => Promise<RouteSet[]>;
  /** For the OpenAPI document: the other functions' paths, asked of the deployed functions. */
  remotePaths?: () => Promise<Record<string, unknown>>;
}

export function sysRoutes(options: SysOptions = {}): RouteSet[] {
  const engineRoutes = options.engineRoutes ?? (async () => []);
  const own: RouteSet[] = [
    {
      prefix: 'sys',
      mount: fixed('sys'),
      paths: [
        ...systemPaths(async () => [...own, ...(await engineRoutes())], options.remotePaths),
        ...policyPaths,
        ...capabilityPaths,
        ...leasePaths,
        ...mountPaths,
        ...sealStatusPaths,
        ...serverInfoPaths,
        ...uiMountPaths,
        ...wrappingPaths,
        ...auditPaths,
        ...authMountPaths,
        ...metricsPaths,
      ],
    },
    { prefix: 'auth/token', mount: fixed('auth/token'), paths: tokenPaths },
    ...(options.auth ?? []),
  ];
  return own;
}

/** The sys app with what `options` wires in (lib/sys-function.ts gives it this build's auth methods). */
export function createSysApp(deps: Deps, options: SysOptions = {}) {
  return createVaultApi({ name: 'sys', deps, routes: sysRoutes(options) });
}
