/**
 * How sys and the sweeper reach engine code when deployed: by invoking the engine's own
 * function (lib/lambda.ts answers). `LATCHKEY_FUNCTIONS` maps engine type → function name;
 * infra/functions.cjs sets it. Locally and in tests, engines are loaded in-process instead.
 */
import { LambdaInvoker } from './aws/lambda-invoke';
import type { Deps } from './deps';

export function functionNames(env: NodeJS.ProcessEnv = process.env): Record<string, string> | undefined {
  if (!env.LATCHKEY_FUNCTIONS) return undefined;
  return JSON.parse(env.LATCHKEY_FUNCTIONS) as Record<string, string>;
}

export function useRemoteRevokers(deps: Deps, names: Record<string, string>, invoker = new LambdaInvoker(deps.env.region)): void {
  deps.revokers.useLoader(async (type) => {
    const name = names[type];
    if (!name) return undefined;
    return async (lease) => {
      await invoker.invoke(name, { latchkey: 'revoke-lease', lease_id: lease.lease_id });
    };
  });
}

/** The other functions' OpenAPI paths, asked of each function. */
export async function remoteOpenApiPaths(names: Record<string, string>, invoker: LambdaInvoker): Promise<Record<string, unknown>> {
  const parts = await Promise.all(Object.values(names).map((n) => invoker.invoke<Record<string, unknown>>(n, { latchkey: 'openapi' })));
  return Object.assign({}, ...parts) as Record<string, unknown>;
}
