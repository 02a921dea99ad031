import { LambdaInvoker } from '../lib/aws/lambda-invoke';
import { depsFromEnvironment } from '../lib/composition';
import { sysFunction } from '../lib/lambda';
import { functionNames, remoteOpenApiPaths, useRemoteRevokers } from '../lib/remote-engines';
import { sysFunctionApp } from '../lib/sys-function';

// Engine code stays in the engine functions: sys invokes them to revoke their leases and to
// describe their paths (lib/lambda.ts), so this bundle holds sys alone. Initialisation and new
// root tokens come only as internal invokes (`npm run admin -- init|generate-root`), never over HTTP.
const deps = depsFromEnvironment();
const names = functionNames() ?? {};
const invoker = new LambdaInvoker(deps.env.region, process.env.LAMBDA_ENDPOINT);
useRemoteRevokers(deps, names, invoker);

export const handler = sysFunction(
  sysFunctionApp(
    deps,
    async () => [],
    () => remoteOpenApiPaths(names, invoker),
  ),
  deps,
);
