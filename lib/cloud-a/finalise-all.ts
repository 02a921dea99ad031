/** The scheduled rotate-root finalisation: every cloud-A mount's pending rotation, once. */
import { metrics, timedJob } from '../metrics/catalog';
import type { Deps } from '../deps';
import { processEnv, type EnvReader } from '../cloud-common/env-settings';
import { logError, logInfo } from '../log';
import { mountPartition } from '../mount-partition';
import { cloudAStore } from './cloud-a-store';
import { finalise } from './rotate';

export function finaliseAllRotations(deps: Deps, readEnv: EnvReader = processEnv): Promise<Record<string, string>> {
  return timedJob(
    'cloud-a-rotate',
    () => finaliseAll(deps, readEnv),
    (r) => Object.values(r).filter((o) => o !== 'none' && o !== 'failed').length,
  );
}

async function finaliseAll(deps: Deps, readEnv: EnvReader): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const m of deps.mounts.filter((x) => x.type === 'cloud-a')) {
    try {
      out[m.path] = await finalise(deps, cloudAStore(mountPartition(deps, 'cloud-a', m.path)), readEnv, 3);
      if (out[m.path] !== 'none') logInfo('cloud-a-rotate-finalise', { mount: m.path, outcome: out[m.path] });
    } catch (e) {
      metrics.jobs.failures.inc({ job: 'cloud-a-rotate' });
      out[m.path] = 'failed';
      logError('cloud-a-rotate-finalise-fault', { mount: m.path }, e);
    }
  }
  return out;
}
