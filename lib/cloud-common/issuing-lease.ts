/**
 * Leases for multi-step issuing. The write-ahead record first goes into a provisional lease that
 * expires after a short issuing window, so a request that dies mid-way (a function time-out) is
 * cleaned up by the sweeper within minutes, not at the end of the role's TTL. On success the
 * complete record moves to the lease the client gets, and the provisional one is retired (its
 * record becomes `{kind: "moved"}`, which revokers treat as nothing to undo).
 */
import type { Deps } from '../deps';
import { logError } from '../log';
import type { Json } from '../store/store';
import type { LeaseRecord, NewLease } from '../sys/leases';

export const ISSUING_WINDOW = 300;

export type MovedRecord = {
  kind: 'moved';
  to: string;
};

export const isMoved = (v: unknown): v is MovedRecord => (v as { kind?: unknown } | null)?.kind === 'moved';

export function openIssuingLease(deps: Deps, n: Omit<NewLease, 'ttl' | 'maxTtl' | 'renewable'>): Promise<LeaseRecord> {
  return deps.leases.create({ ...n, ttl: ISSUING_WINDOW, maxTtl: ISSUING_WINDOW, renewable: false });
}

/** The client's lease, holding `record`; the provisional lease is retired. */
export async function finishIssuingLease(deps: Deps, provisional: LeaseRecord, n: NewLease & { revoke: Json }): Promise<LeaseRecord> {
  const final = await deps.leases.create(n);
  try {
    await deps.leases.update(provisional.lease_id, { kind: 'moved', to: final.lease_id });
  } catch (e) {
    // The provisional lease still owns the objects: the caller undoes them; drop the new lease too.
    await deps.leases
      .revoke(final.lease_id)
      .catch((err: unknown) => logError('cloud-lease-retire-fault', { lease_id: final.lease_id }, err));
    throw e;
  }
  // Nothing to undo any more; if this fails, the sweeper retires it when it expires.
  await deps.leases
    .revoke(provisional.lease_id)
    .catch((err: unknown) => logError('cloud-lease-retire-fault', { lease_id: provisional.lease_id }, err));
  return final;
}
