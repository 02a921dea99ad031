/**
 * Step 4b: the lease of the secret the handler hands out (`Result.secret`), made by the edge as
 * OpenBao's framework makes a `Secret`'s: under the request's mount and path, owned by the
 * caller's token, rendered as the envelope's lease_id, lease_duration and renewable. Handlers
 * that must lease before they act get the same place through `req.secrets` (run.ts).
 */
import type { Result } from '../path';
import type { Call } from './call';

/** The leases of this call's secret: its mount, engine type, path (as requested), and owner. */
export function secretsOf(call: Call) {
  return call.deps.secrets({
    mount: call.set.mount.path,
    engine: call.set.mount.type,
    path: call.rel.replace(/\/+$/, ''),
    owner: call.principal?.accessor ?? '',
    ownerLiveAs: call.principal?.liveAs,
  });
}

export async function lease(call: Call, result: Result): Promise<Result> {
  if (!result.secret) return result;
  const record = await secretsOf(call).grant(result.secret);
  const { secret: _granted, ...rest } = result;
  return { ...rest, lease: { id: record.lease_id, duration: record.expire_time - record.issue_time, renewable: record.renewable } };
}
