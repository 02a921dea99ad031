/**
 * The scheduled CRL work of config/crl auto_rebuild, per pki mount (functions/pki-tidy.ts on its
 * schedule; the local service on the sweeper's timer): an issuer's complete CRL is rebuilt once
 * within auto_rebuild_grace_period of its nextUpdate (or when it has none), which rebuilds its
 * delta too; with enable_delta, a delta is rebuilt when delta_rebuild_interval has passed since it
 * was built and the revocations it would list changed (a revocation whose at-once rebuild
 * failed), or when it is missing or on an older base. Delta list entries no delta in place needs
 * any more are removed.
 */
import type { Deps } from '../deps';
import { logError } from '../log';
import { metrics, mountOf } from '../metrics/catalog';
import { mountPartition } from '../mount-partition';
import type { Partition } from '../store/store';
import { crlGroup, rebuildCrl, rebuildDelta } from './crl';
import { crlBase, deltaEntries, deltaRecord, digestOf, OVERLAP_MS, pruneDeltaWal } from './crl-delta';
import { pkiRepository } from './issuer';

export interface CrlScheduleReport {
  mount: string;
  complete: number;
  delta: number;
  pruned: number;
  failed: number;
}

export async function scheduledCrls(deps: Deps, deadline: number): Promise<CrlScheduleReport[]> {
  const out: CrlScheduleReport[] = [];
  for (const m of deps.mounts.filter((x) => x.type === 'pki')) {
    if (Date.now() >= deadline) break;
    out.push({ mount: m.path, ...(await mountCrls(deps, mountPartition(deps, 'pki', m.path), deadline)) });
  }
  return out;
}

/** One mount's due CRL work; an issuer's failure (its KMS key unreachable) is counted and the others go on. */
export async function mountCrls(deps: Deps, part: Partition, deadline: number): Promise<Omit<CrlScheduleReport, 'mount'>> {
  const report = { complete: 0, delta: 0, pruned: 0, failed: 0 };
  const repo = pkiRepository(deps, part);
  // Both are needed whether or not CRLs are rebuilt here (the overdue gauge reads the issuers).
  const [config, all] = await Promise.all([repo.config('crl'), repo.issuers()]);
  if (!config.autoRebuild) {
    await countOverdue(deps, part, all);
    report.pruned = await pruneDeltaWal(part, Infinity);
    return report;
  }
  let oldestCutoff = Infinity;
  for (const issuer of all.filter((i) => i.keyId && i.usage.includes('crl-signing'))) {
    if (Date.now() >= deadline) return report;
    try {
      const base = await crlBase(part, issuer.id);
      if (!base || deps.now() >= base.nextUpdate - config.autoRebuildGracePeriod * 1000) {
        await rebuildCrl(deps, part, issuer.id);
        report.complete++;
      } else if (config.enableDelta) {
        const delta = await deltaRecord(part, issuer.id);
        const group = new Set(crlGroup(all, issuer).map((i) => i.id));
        const due =
          !delta ||
          delta.base !== base.number ||
          (deps.now() >= delta.builtAt + config.deltaRebuildInterval * 1000 &&
            digestOf(config.disable ? [] : await deltaEntries(repo, group, base)) !== delta.digest);
        if (due) {
          await rebuildDelta(deps, part, issuer.id);
          report.delta++;
        }
      }
      oldestCutoff = Math.min(oldestCutoff, (await crlBase(part, issuer.id))?.cutoff ?? 0);
    } catch (e) {
      logError('pki-crl-rebuild-fault', { mount: part.name, issuer: issuer.id }, e);
      metrics.jobs.failures.inc({ job: 'pki-crl' });
      report.failed++;
      oldestCutoff = 0;
    }
  }
  await countOverdue(deps, part, all);
  report.pruned = await pruneDeltaWal(part, config.enableDelta ? oldestCutoff - OVERLAP_MS : Infinity);
  return report;
}

/** How many of the mount's CRLs are past their next update (none built counts as none overdue): the CrlsOverdue gauge. */
async function countOverdue(deps: Deps, part: Partition, issuers: { id: string; keyId?: string; usage: string[] }[]): Promise<void> {
  const signing = issuers.filter((i) => i.keyId && i.usage.includes('crl-signing'));
  const bases = await Promise.all(signing.map((i) => crlBase(part, i.id)));
  const overdue = bases.filter((b) => b?.nextUpdate && deps.now() >= b.nextUpdate).length;
  metrics.pki.crlOverdue.set({ mount: mountOf(part.name) }, overdue);
}
