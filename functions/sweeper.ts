import { depsFromEnvironment } from '../lib/composition';
import { LambdaInvoker } from '../lib/aws/lambda-invoke';
import { logInfo } from '../lib/log';
import { withMetrics } from '../lib/metrics/invocation';
import { functionNames, useRemoteRevokers } from '../lib/remote-engines';
import { sweep } from '../lib/sys/sweeper';

const deps = depsFromEnvironment();
// Each lease is revoked by its engine's own function (lib/lambda.ts).
useRemoteRevokers(deps, functionNames() ?? {}, new LambdaInvoker(deps.env.region, process.env.LAMBDA_ENDPOINT));

/** Scheduled every minute: revoke due leases (with back-off on failures), drop expired tokens. */
export const handler = withMetrics('sweeper', async (_event: unknown, context?: { getRemainingTimeInMillis?: () => number }) => {
  const budget = Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? 60_000) - 5000);
  const report = await sweep(deps, budget);
  logInfo('sweep', { function: 'sweeper', ...report });
  return report;
});
