import { depsFromEnvironment } from '../lib/composition';
import { logInfo } from '../lib/log';
import { withMetrics } from '../lib/metrics/invocation';
import { pkiSchedule } from '../lib/pki/auto-tidy';

const deps = depsFromEnvironment();

/** Scheduled: on every pki mount, rebuilds due CRLs (config/crl auto_rebuild, enable_delta), starts a due auto-tidy and resumes a tidy cut short. */
export const handler = withMetrics('pki-tidy', async (_event: unknown, context?: { getRemainingTimeInMillis?: () => number }) => {
  const budget = Math.max(1000, (context?.getRemainingTimeInMillis?.() ?? 60_000) - 5000);
  const report = await pkiSchedule(deps, Date.now() + budget);
  logInfo('pki-auto-tidy', { function: 'pki-tidy', report });
  return report;
});
