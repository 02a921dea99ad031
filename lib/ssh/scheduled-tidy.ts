/**
 * The scheduled SSH work (functions/ssh-tidy.ts deployed, the local server's scheduler locally):
 * on every ssh mount, the records of certificates expired more than the default safety buffer
 * ago go, and the KRL stops naming them, as `POST ssh/tidy` does on demand.
 */
import type { Deps } from '../deps';
import { timedJob } from '../metrics/catalog';
import { mountPartition } from '../mount-partition';
import { CertRecords } from './cert-records';
import { DEFAULT_SAFETY_BUFFER_SECONDS, tidyCertificates } from './revoke';

export function tidyAllSshMounts(deps: Deps): Promise<{ mount: string; removed: number }[]> {
  return timedJob(
    'ssh-tidy',
    () => tidyAll(deps),
    (r) => r.reduce((n, m) => n + m.removed, 0),
  );
}

async function tidyAll(deps: Deps): Promise<{ mount: string; removed: number }[]> {
  const out = [];
  for (const m of deps.mounts.filter((x) => x.type === 'ssh')) {
    const records = new CertRecords(mountPartition(deps, 'ssh', m.path));
    out.push({ mount: m.path, removed: await tidyCertificates(records, deps.now(), DEFAULT_SAFETY_BUFFER_SECONDS) });
  }
  return out;
}
