import { depsFromEnvironment } from '../lib/deps';
import { useEngineRevokers } from '../lib/engines';
import { logInfo } from '../lib/log';
import { sweep } from '../lib/sys/sweeper';

const deps = depsFromEnvironment();
useEngineRevokers(deps);

/** Scheduled every minute: revoke due leases (with back-off on failures), drop expired tokens. */
export async function handler(_event: unknown, context?: { getRemainingTimeInMillis?: () => number }) {
  const budget = Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? 60_000) - 5000);
  const report = await sweep(deps, budget);
  logInfo('sweep', { function: 'sweeper', ...report });
  return report;
}
