/**
 * Which function serves a request path: the same rule API Gateway's routes express
 * (infra/ generates them from the same mounts), used by the local one-process server.
 * `path` is the decoded path (request-path.ts), the one every function routes and authorises on.
 */
import type { EngineType, Mount } from './config';

export type FunctionName = 'sys' | 'catalog' | EngineType;

const CATALOG_PREFIXES = ['kv', 'catalog', 'agent', 'health', 'status', 'session', 'event'];

export function functionFor(path: string, mounts: Mount[]): FunctionName | undefined {
  const m = /^\/v1\/([^/]*)/.exec(path);
  if (!m) return undefined;
  const first = m[1] ?? '';
  if (first === 'sys' || first === 'auth') return 'sys';
  if (CATALOG_PREFIXES.includes(first)) return 'catalog';
  return mounts.find((x) => x.path === first)?.type;
}
