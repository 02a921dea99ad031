/**
 * The scheduled sweep: revokes leases that are due (expired, or waiting for a retry after a
 * failed revocation) and removes expired tokens, page by page, within a time budget.
 */
import type { Deps } from '../deps';
import { timedJob } from '../metrics/catalog';

export interface SweepReport {
  leasesRevoked: number;
  leasesFailed: number;
  tokensRemoved: number;
}

export function sweep(deps: Deps, budgetMs = 50_000, page = 100): Promise<SweepReport> {
  return timedJob(
    'lease-sweep',
    () => sweepOnce(deps, budgetMs, page),
    (r) => r.leasesRevoked + r.tokensRemoved,
  );
}

async function sweepOnce(deps: Deps, budgetMs: number, page: number): Promise<SweepReport> {
  const deadline = Date.now() + budgetMs;
  const report: SweepReport = { leasesRevoked: 0, leasesFailed: 0, tokensRemoved: 0 };
  while (Date.now() < deadline) {
    const r = await deps.leases.sweep(page);
    report.leasesRevoked += r.revoked;
    report.leasesFailed += r.failed;
    // Failed ones are rescheduled into the future, so a page with no success is the last.
    if (r.revoked === 0) break;
  }
  while (Date.now() < deadline) {
    const expired = await deps.tokens.expired(page);
    for (const accessor of expired) await deps.tokens.sweep(accessor);
    report.tokensRemoved += expired.length;
    if (expired.length < page) break;
  }
  return report;
}
