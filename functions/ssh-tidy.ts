import { depsFromEnvironment } from '../lib/composition';
import { logInfo } from '../lib/log';
import { withMetrics } from '../lib/metrics/invocation';
import { tidyAllSshMounts } from '../lib/ssh/scheduled-tidy';

const deps = depsFromEnvironment();

/** Scheduled: on every ssh mount, removes the records of long-expired certificates, so the KRL stops naming them. */
export const handler = withMetrics('ssh-tidy', async () => {
  const report = await tidyAllSshMounts(deps);
  logInfo('ssh-tidy', { function: 'ssh-tidy', report });
  return report;
});
