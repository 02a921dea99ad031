/**
 * sys/leases: look up, list, renew, revoke (one lease, a prefix, by force), and the legacy
 * sys/renew, sys/revoke, sys/revoke-prefix and sys/revoke-force paths existing clients still call.
 */
import { HttpError, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req, type Result } from '../../http/path';
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

const leaseId = { lease_id: f.string({ description: 'the lease id' }) };
const urlId = { url_lease_id: f.pathParam({ description: 'the lease id, in the path' }) };
const renewFields = { ...leaseId, increment: f.duration({ description: 'requested time to live, from now' }) };

/** The lease id from the path, else from the body: 400 when neither names one. */
function idOf(d: { lease_id?: string | undefined }): string {
  const id = ('url_lease_id' in d && typeof d.url_lease_id === 'string' && d.url_lease_id) || d.lease_id;
  if (!id) throw new HttpError(400, ['missing required field "lease_id"']);
  return id;
}

async function renew(req: Req<typeof renewFields>): Promise<Result> {
  const r = await req.deps.leases.renew(idOf(req.data), req.data.increment);
  // The lease granted at the renewal, not what is left when the response is built.
  return { lease: { id: r.lease_id, duration: Math.max(0, r.expire_time - r.last_renewal), renewable: r.renewable }, data: {} };
}

async function revoke(req: Req<typeof leaseId>): Promise<void> {
  await req.deps.leases.revoke(idOf(req.data));
}

/**
 * revoke-prefix / revoke-force: a prefix without a trailing slash that is exactly a lease's id
 * revokes that lease; otherwise every lease under `<prefix>/`, as the reference does.
 */
async function revokePrefix(req: Req<{ prefix: ReturnType<typeof f.pathParam> }>, force: boolean): Promise<Result | void> {
  const given = req.data.prefix;
  if (!given.endsWith('/') && (await req.deps.leases.exists(given))) return revokeExactly(req, given, force);
  const prefix = given.replace(/\/?$/, '/');
  // Tokens are leases of auth/token/create[/<role>] to the reference: revoke those made there.
  if (prefix.startsWith('auth/')) await req.deps.tokens.revokeByPathPrefix(prefix);
  const { errors, unfinished, revoked } = await req.deps.leases.revokePrefix(prefix, force);
  if (errors.length)
    throw new HttpError(502, [`failed to revoke ${errors.length} lease(s) under "${given}"; they will be retried`, ...errors.slice(0, 5)]);
  if (unfinished)
    return { data: { revoked }, warnings: [`revoked ${revoked} lease(s); more remain under "${given}": call again to continue`] };
}

/** A prefix that is exactly a lease's id names that lease alone, as the reference takes it. */
async function revokeExactly(req: Req, id: string, force: boolean): Promise<void> {
  return force ? req.deps.leases.revokeForced(id) : req.deps.leases.revoke(id);
}

async function listUnder(req: Req, prefix: string): Promise<Result> {
  const keys = await req.deps.leases.listLevel(prefix ? prefix.replace(/\/?$/, '/') : '');
  if (!keys.length) throw new NotFound();
  return { data: { keys } };
}

const prefixField = { prefix: f.pathParam({ description: 'a lease id prefix' }) };

/** The same two operations under their current and legacy names. */
function renewAndRevoke(renewPath: string, revokePath: string) {
  return [
    definePath({ pattern: renewPath, fields: renewFields, help: 'Renew a lease, up to its maximum.', operations: { write: renew } }),
    definePath({
      pattern: `${renewPath}/*url_lease_id`,
      fields: { ...renewFields, ...urlId },
      help: 'Renew the lease named in the path.',
      operations: { write: renew },
    }),
    definePath({ pattern: revokePath, fields: leaseId, help: 'Revoke a lease now: undo what it created.', operations: { write: revoke } }),
    definePath({
      pattern: `${revokePath}/*url_lease_id`,
      fields: { ...leaseId, ...urlId },
      help: 'Revoke the lease named in the path.',
      operations: { write: revoke },
    }),
  ];
}

function prefixPaths(base: string) {
  return [
    definePath({
      pattern: `${base}revoke-prefix/*prefix`,
      fields: prefixField,
      sudo: ['write'],
      help: 'Revoke every lease under a prefix (or the lease with exactly that id).',
      operations: { write: (req) => revokePrefix(req, false) },
    }),
    definePath({
      pattern: `${base}revoke-force/*prefix`,
      fields: prefixField,
      sudo: ['write'],
      help: 'Revoke every lease under a prefix, deleting those whose engine fails to undo them (what they created may remain).',
      operations: { write: (req) => revokePrefix(req, true) },
    }),
  ];
}

export const leasePaths = [
  definePath({
    pattern: 'leases/lookup',
    fields: leaseId,
    help: 'Look up a lease (write), or list the top level of lease ids (LIST, sudo).',
    sudo: ['list'],
    operations: {
      write: async (req) => ({ data: leaseData(await req.deps.leases.lookup(idOf(req.data)), req.deps.now()) }),
      list: (req) => listUnder(req, ''),
    },
  }),
  definePath({
    pattern: 'leases/lookup/*prefix',
    fields: prefixField,
    help: 'List lease ids one level under a prefix ("issue/" for a folder).',
    sudo: ['list'],
    operations: { list: (req) => listUnder(req, req.data.prefix) },
  }),
  ...renewAndRevoke('leases/renew', 'leases/revoke'),
  ...renewAndRevoke('renew', 'revoke'),
  ...prefixPaths('leases/'),
  ...prefixPaths(''),
];
