/**
 * The sys function's app: sys's own paths with the auth methods this build serves
 * (lib/auth/methods.ts), wired here, above both, so sys never imports the methods built on it.
 */
import type { Hono } from 'hono';
import { authRoutes } from './auth/methods';
import type { Deps } from './deps';
import type { RouteSet } from './http/path';
import { createSysApp } from './sys/app';

export function sysFunctionApp(
  deps: Deps,
  engineRoutes?: () => Promise<RouteSet[]>,
  remotePaths?: () => Promise<Record<string, unknown>>,
): Hono {
  return createSysApp(deps, {
    auth: authRoutes(),
    ...(engineRoutes ? { engineRoutes } : {}),
    ...(remotePaths ? { remotePaths } : {}),
  });
}
