/** sys/leases: look up, renew, revoke, list. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import type { LeaseRecord } from '../leases';

const iso = (s: number) => (s ? new Date(s * 1000).toISOString() : null);

function leaseData(r: LeaseRecord, now: number) {
  return {
    id: r.lease_id,
    issue_time: iso(r.issue_time),
    expire_time: iso(r.expire_time),
    last_renewal: iso(r.last_renewal),
    renewable: r.renewable,
    ttl: Math.max(0, r.expire_time - Math.floor(now / 1000)),
  };
}

const leaseId = { lease_id: f.string({ required: true, description: 'the lease id' }) };

export const leasePaths = [
  definePath({
    pattern: 'leases/lookup',
    fields: leaseId,
    help: 'Look up a lease.',
    operations: {
      write: async (req) => ({ data: leaseData(await req.deps.leases.lookup(req.data.lease_id), req.deps.now()) }),
    },
  }),
  definePath({
    pattern: 'leases/lookup/*prefix',
    fields: { prefix: f.pathParam() },
    help: 'List lease ids under a prefix.',
    sudo: ['list'],
    operations: {
      list: async (req) => {
        const keys = await req.deps.leases.list(req.data.prefix.replace(/\/?$/, '/'));
        return { data: { keys } };
      },
    },
  }),
  definePath({
    pattern: 'leases/renew',
    fields: { ...leaseId, increment: f.duration({ description: 'requested time to live, from now' }) },
    help: 'Renew a lease, up to its maximum.',
    operations: {
      write: async (req) => {
        const r = await req.deps.leases.renew(req.data.lease_id, req.data.increment);
        return {
          // The lease granted at the renewal, not what is left when the response is built.
          lease: { id: r.lease_id, duration: Math.max(0, r.expire_time - r.last_renewal), renewable: r.renewable },
          data: {},
        };
      },
    },
  }),
  definePath({
    pattern: 'leases/revoke',
    fields: leaseId,
    help: 'Revoke a lease now: undo what it created.',
    operations: {
      write: async (req) => {
        await req.deps.leases.revoke(req.data.lease_id);
      },
    },
  }),
];
