/**
 * The scheduled PKI work: per pki mount, start a tidy when auto-tidy is due, resume one cut
 * short; and the CRL rebuilds config/crl auto_rebuild and enable_delta ask for (crl-schedule.ts).
 */
import type { Deps } from '../deps';
import { timedJob } from '../metrics/catalog';
import { scheduledCrls, type CrlScheduleReport } from './crl-schedule';
import { mountPartition } from '../mount-partition';
import { PkiRepository } from './repository';
import { claimTidy, isLive, runTidy, tidyStatus } from './tidy';

export async function autoTidy(deps: Deps, deadline: number): Promise<{ mount: string; ran: boolean; finished: boolean }[]> {
  const out = [];
  for (const m of deps.mounts.filter((x) => x.type === 'pki')) {
    const part = mountPartition(deps, 'pki', m.path);
    const status = await tidyStatus(part);
    const now = deps.now();
    if (status.state === 'Running' && !isLive(status, now)) {
      // A run cut short: take it over and continue from where the indexes now stand.
      out.push({ mount: m.path, ran: true, finished: await runTidy(deps, part, deadline) });
      continue;
    }
    const store = new PkiRepository(deps, part);
    const c = await store.config('auto-tidy');
    if (!c.enabled || (c.lastRun ?? 0) + c.intervalDuration * 1000 > now || isLive(status, now)) {
      out.push({ mount: m.path, ran: false, finished: false });
      continue;
    }
    await store.writeConfig('auto-tidy', { ...c, lastRun: now });
    if (
      !(await claimTidy(deps, part, {
        tidyCertStore: c.tidyCertStore,
        tidyRevokedCerts: c.tidyRevokedCerts,
        safetyBuffer: c.safetyBuffer,
        tidyAcme: c.tidyAcme,
        acmeAccountSafetyBuffer: c.acmeAccountSafetyBuffer,
        tidyExpiredIssuers: c.tidyExpiredIssuers,
        issuerSafetyBuffer: c.issuerSafetyBuffer,
      }))
    )
      continue;
    out.push({ mount: m.path, ran: true, finished: await runTidy(deps, part, deadline) });
  }
  return out;
}

/** Everything the PKI schedule does (functions/pki-tidy.ts; the local service on the sweeper's timer): CRLs first, they are due at a time. */
export async function pkiSchedule(
  deps: Deps,
  deadline: number,
): Promise<{ crl: CrlScheduleReport[]; tidy: Awaited<ReturnType<typeof autoTidy>> }> {
  const crl = await timedJob(
    'pki-crl',
    () => scheduledCrls(deps, deadline),
    (r) => r.reduce((n, m) => n + m.complete + m.delta, 0),
  );
  return {
    crl,
    tidy: await timedJob(
      'pki-tidy',
      () => autoTidy(deps, deadline),
      (r) => r.filter((m) => m.ran).length,
    ),
  };
}
