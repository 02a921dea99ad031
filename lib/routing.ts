/**
 * Which function serves a request path: the same rule API Gateway's routes express
 * (infra/ generates them from the same mounts), used by the local one-process server.
 * `path` is the decoded path (request-path.ts), the one every function routes and authorises on.
 */
import surfaces from '../infra/surfaces.json';
import type { Mount } from './config';
import type { EngineType } from './types';

export type FunctionName = 'sys' | 'catalog' | EngineType;

/** First path segments served by sys and by the catalog (infra/surfaces.json, as config.ts and infra/ read it). */
export const SYS_PREFIXES: readonly string[] = surfaces.sys_prefixes;
export const CATALOG_PREFIXES: readonly string[] = surfaces.catalog_prefixes;

export function functionFor(path: string, mounts: Mount[]): FunctionName | undefined {
  const m = /^\/v1\/([^/]*)/.exec(path);
  if (!m) return undefined;
  const first = m[1] ?? '';
  if (SYS_PREFIXES.includes(first)) return 'sys';
  if (CATALOG_PREFIXES.includes(first)) return 'catalog';
  return mounts.find((x) => x.path === first)?.type;
}
