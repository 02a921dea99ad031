/**
 * The generic lease registry. An engine creates a lease with what its revocation must undo
 * (`revoke`, engine data, sealed by the engine when secret) and registers a revoker for its
 * type. Revocation deletes the lease only after the revoker succeeded; a failure is recorded
 * and retried with back-off by the sweeper, never dropped.
 * Every lease belongs to the token that created it: an owner link (`owner/<accessor>/<lease>`)
 * is written no later than the lease (with it, in one atomic batch, where the store has those),
 * so revoking the token finds every lease it has, even after a crash.
 */
import { randomBytes } from 'node:crypto';
import { ConflictError, Forbidden, InvalidInput, UpstreamError } from '../domain-errors';
import { metrics } from '../metrics/catalog';
import type { Json, Partition, TransactWrite } from '../store/store';
import type { LiveItem } from './token-tree';
import { expirySort } from './token-tree';

export interface LeaseRecord {
  lease_id: string;
  mount: string;
  engine: string;
  issue_time: number;
  expire_time: number;
  last_renewal: number;
  renewable: boolean;
  /** The latest moment renewals may reach (seconds since the epoch). */
  max_expire_time: number;
  revoke: Json;
  /** The accessor of the token that created it ('' for none). Leases written before it lack it: read with `?? ''`. */
  owner: string;
  attempts: number;
  next_attempt: number;
  last_error: string;
  [k: string]: Json;
}

export type Revoker = (lease: LeaseRecord) => Promise<void>;

/** Engine revokers by engine type; a loader brings in an engine's revoker on first need. */
export class RevokerRegistry {
  private readonly known = new Map<string, Revoker>();
  private loader?: (type: string) => Promise<Revoker | undefined>;

  set(type: string, revoker: Revoker): void {
    this.known.set(type, revoker);
  }

  useLoader(loader: (type: string) => Promise<Revoker | undefined>): void {
    this.loader = loader;
  }

  async get(type: string): Promise<Revoker | undefined> {
    const hit = this.known.get(type);
    if (hit || !this.loader) return hit;
    const loaded = await this.loader(type);
    if (loaded) this.known.set(type, loaded);
    return loaded;
  }
}

export interface NewLease {
  mount: string;
  engine: string;
  /** The path under the mount: "creds/<role>" or "issue/<role>". */
  path: string;
  ttl: number;
  maxTtl: number;
  renewable: boolean;
  revoke: Json;
  /** The accessor of the calling token (req.principal.accessor); '' when there is none. */
  owner: string;
  /** The owner's accessor items as its check found them live (req.principal.liveAs): the lease is written on condition they are unchanged. */
  ownerLiveAs?: readonly LiveItem[] | undefined;
  /** The secret's own records, written with the lease, all or none (an SSH certificate's record). */
  records?: readonly TransactWrite[] | undefined;
}

export const LEASE_EXPIRY_INDEX = 'lease-expiry';
const MAX_BACKOFF = 3600;
const OWNED_PARALLEL = 8;
/** Lease records up to this many characters go with their owner link in one batch (well under the batch's inline limit). */
const BATCH_RECORD_LIMIT = 64 * 1024;
/** How long a prefix revocation works in one call before answering (API Gateway allows 29 s). */
const PREFIX_BUDGET_MS = 20_000;

export interface PrefixRevocation {
  revoked: number;
  errors: string[];
  /** The deadline came first: leases remain under the prefix. */
  unfinished: boolean;
}

const leaseKey = (id: string) => `lease/${id}`;
const ownerKey = (owner: string, id: string) => `owner/${owner}/${id}`;

export function backoffSeconds(attempts: number): number {
  return Math.min(MAX_BACKOFF, 2 ** Math.min(attempts, 12));
}

export class Leases {
  /** Whether a lease's owner token is still live (read past caches); set by the composition root. */
  ownerLive?: (accessor: string) => Promise<boolean>;

  /** `transact`: the store's all-or-nothing write across partitions (absent: ordered writes only). */
  constructor(
    private readonly part: Partition,
    private readonly revokers: RevokerRegistry,
    private readonly now: () => number,
    private readonly transact?: (writes: readonly TransactWrite[]) => Promise<number[]>,
  ) {}

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  async create(n: NewLease): Promise<LeaseRecord> {
    const now = this.seconds();
    const ttl = Math.min(n.ttl, n.maxTtl);
    const id = `${n.mount}/${n.path}/${randomBytes(18).toString('base64url')}`;
    const record: LeaseRecord = {
      lease_id: id,
      mount: n.mount,
      engine: n.engine,
      issue_time: now,
      expire_time: now + ttl,
      last_renewal: 0,
      renewable: n.renewable,
      max_expire_time: now + n.maxTtl,
      revoke: n.revoke,
      owner: n.owner,
      attempts: 0,
      next_attempt: now + ttl,
      last_error: '',
    };
    if (!(await this.writeIfOwnerUnchanged(record, n))) {
      if (n.records?.length) await this.writeRecords(n.records);
      await this.write(record);
      // The owner may have been revoked after the request was authorised and before its revocation
      // could see this lease: undo it now rather than leave a lease nobody owns.
      if (n.owner && this.ownerLive && !(await this.ownerLive(n.owner))) {
        await this.revoke(id).catch(() => undefined);
        throw new Forbidden('permission denied: the token was revoked');
      }
    }
    metrics.leases.created.inc({ engine: record.engine });
    return record;
  }

  /**
   * The secret's records, the owner link and the lease in one transaction, on condition that the
   * owner's accessor items are as its check found them: a revocation marks the revoked token's
   * item (an ancestor's, for a tree) before it looks for leases, so either it finds this lease
   * or this write fails. One round trip. False when it could not be used (no transaction, no
   * owner's items, or an item changed since: a renewal, or a revocation the slow path refuses).
   */
  private async writeIfOwnerUnchanged(record: LeaseRecord, n: NewLease): Promise<boolean> {
    if (!this.transact || !n.owner || !n.ownerLiveAs?.length || JSON.stringify(record).length > BATCH_RECORD_LIMIT) return false;
    const id = record.lease_id;
    try {
      await this.transact([
        ...(n.records ?? []),
        { partition: this.part.name, key: ownerKey(n.owner, id), value: { lease_id: id }, ifAbsent: true },
        { partition: this.part.name, key: leaseKey(id), value: record, ifAbsent: true, index: this.indexOf(record) },
        ...n.ownerLiveAs.map((c) => ({ partition: this.part.name, key: c.key, check: { ifVersion: c.version } })),
      ]);
      return true;
    } catch (e) {
      if (e instanceof ConflictError) return false;
      throw e;
    }
  }

  /** A secret's records on the slow path, together, before its lease (a lease never names records that are not there). */
  private async writeRecords(records: readonly TransactWrite[]): Promise<void> {
    if (!this.transact) throw new Error("a secret's records need a store with transactions");
    await this.transact(records);
  }

  /**
   * Writes a new lease and its owner link, the link never after the lease. Where a batch is
   * atomic (the embedded store) both go in one batch: one fsynced write, one disk wait per
   * lease instead of two. Elsewhere (DynamoDB, whose BatchWriteItem a crash can cut in half and
   * leave a lease no revocation of its token would find) the link first, then the lease. The
   * key is new (a random id), so a batch's version 1 is what a put would make. A record too
   * large for a batch (a long install script) goes one write after the other too.
   */
  private async write(record: LeaseRecord): Promise<void> {
    const id = record.lease_id;
    const lease = { key: leaseKey(id), value: record, index: this.indexOf(record) };
    if (!record.owner || !this.part.atomicBatch || JSON.stringify(record).length > BATCH_RECORD_LIMIT) {
      if (record.owner) await this.part.put(ownerKey(record.owner, id), { lease_id: id });
      await this.part.put(lease.key, record, { ifAbsent: true, index: lease.index });
      return;
    }
    await this.part.batchPut([{ key: ownerKey(record.owner, id), value: { lease_id: id } }, lease]);
  }

  /** Replaces the engine data of a lease (e.g. when a multi-step creation advances). */
  async update(id: string, revoke: Json): Promise<void> {
    const item = await this.get(id);
    await this.part.put(leaseKey(id), { ...item.value, revoke }, { ifVersion: item.version });
  }

  async lookup(id: string): Promise<LeaseRecord> {
    return (await this.get(id)).value;
  }

  /** The keys one level under `prefix` ("issue/" for a folder), as the reference lists leases. */
  async listLevel(prefix: string): Promise<string[]> {
    const level = new Set((await this.list(prefix)).map((rest) => (rest.includes('/') ? rest.slice(0, rest.indexOf('/') + 1) : rest)));
    return [...level].sort();
  }

  /** Whether a lease with exactly this id exists. */
  async exists(id: string): Promise<boolean> {
    return !!id && id.length <= 900 && (await this.part.get(leaseKey(id))) !== undefined;
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(leaseKey(prefix), { ...(cursor ? { cursor } : {}) });
      keys.push(...page.items.map((k) => k.slice(leaseKey(prefix).length)));
      cursor = page.cursor;
    } while (cursor && keys.length < 10_000);
    return keys;
  }

  async renew(id: string, increment: number | undefined): Promise<LeaseRecord> {
    const item = await this.get(id);
    const r = item.value;
    if (!r.renewable) throw new InvalidInput('lease is not renewable');
    const now = this.seconds();
    const wanted = increment || r.expire_time - (r.last_renewal || r.issue_time);
    const next: LeaseRecord = { ...r, last_renewal: now, expire_time: Math.min(now + wanted, r.max_expire_time) };
    next.next_attempt = next.expire_time;
    await this.part.put(leaseKey(id), next, { ifVersion: item.version, index: this.indexOf(next) });
    metrics.leases.renewed.inc({ engine: r.engine });
    return next;
  }

  /** Revokes now: runs the engine's revoker, then deletes the lease. */
  async revoke(id: string): Promise<void> {
    const item = await this.get(id);
    await this.attempt(item.value, item.version, true);
  }

  /**
   * One sweep: revokes leases due by now (expired, or waiting for a retry), up to `limit`.
   * Returns how many were revoked and how many failed (those are rescheduled).
   */
  async sweep(limit = 100): Promise<{ revoked: number; failed: number }> {
    const page = await this.part.queryIndex<LeaseRecord>(LEASE_EXPIRY_INDEX, { to: `${expirySort(this.seconds())}#\uffff`, limit });
    let revoked = 0;
    let failed = 0;
    for (const entry of page.items) {
      const fresh = await this.part.get<LeaseRecord>(entry.key);
      if (!fresh || fresh.value.next_attempt > this.seconds()) continue;
      try {
        await this.attempt(fresh.value, fresh.version, false);
        revoked++;
      } catch {
        failed++;
      }
    }
    return { revoked, failed };
  }

  private async attempt(r: LeaseRecord, version: number, interactive: boolean): Promise<void> {
    try {
      const revoker = await this.revokers.get(r.engine);
      if (!revoker) throw new Error(`no revoker is registered for engine type "${r.engine}"`);
      await revoker(r);
    } catch (e) {
      metrics.leases.revokeFailed.inc({ engine: r.engine });
      const attempts = r.attempts + 1;
      const message = e instanceof Error ? e.message : String(e);
      const next: LeaseRecord = {
        ...r,
        attempts,
        last_error: message.slice(0, 500),
        next_attempt: this.seconds() + backoffSeconds(attempts),
        expire_time: Math.min(r.expire_time, this.seconds()),
      };
      await this.part.put(leaseKey(r.lease_id), next, { ifVersion: version, index: this.indexOf(next) }).catch(() => undefined);
      if (interactive)
        throw new UpstreamError(`failed to revoke lease ${r.lease_id}: ${next.last_error}; it will be retried`, { cause: e });
      throw e;
    }
    await this.drop(r);
  }

  private async drop(r: LeaseRecord): Promise<void> {
    if (await this.part.delete(leaseKey(r.lease_id))) metrics.leases.revoked.inc({ engine: r.engine });
    if (r.owner) await this.part.delete(ownerKey(r.owner, r.lease_id));
  }

  /**
   * Revokes every lease a token owns (its revocation). A lease whose engine fails stays,
   * rescheduled with back-off for the sweeper. False when the deadline came first.
   */
  async revokeOwned(owner: string, deadline: number): Promise<boolean> {
    const prefix = `owner/${owner}/`;
    for (;;) {
      const page = await this.part.listKeys(prefix, { limit: 100 });
      if (!page.items.length) return true;
      // A few at a time: engines' revocations are mostly waiting on I/O.
      for (let i = 0; i < page.items.length; i += OWNED_PARALLEL) {
        if (Date.now() > deadline) return false;
        await Promise.all(page.items.slice(i, i + OWNED_PARALLEL).map((key) => this.revokeLinked(key, key.slice(prefix.length))));
      }
    }
  }

  private async revokeLinked(link: string, id: string): Promise<void> {
    const lease = await this.part.get<LeaseRecord>(leaseKey(id));
    if (lease) await this.attempt(lease.value, lease.version, false).catch(() => undefined);
    await this.part.delete(link);
  }

  /**
   * Revokes every lease whose id starts with `prefix` (page by page, until `deadline`). With
   * `force`, a lease whose engine fails is deleted all the same (what it created may be left
   * behind: the operator's call). Returns how many were revoked, the errors of those that were
   * not, and whether leases remain because the deadline came first (calling again continues).
   */
  async revokePrefix(prefix: string, force: boolean, deadline = Date.now() + PREFIX_BUDGET_MS): Promise<PrefixRevocation> {
    const out: PrefixRevocation = { revoked: 0, errors: [], unfinished: false };
    let cursor: string | undefined;
    do {
      const page = await this.part.listKeys(leaseKey(prefix), { limit: 100, ...(cursor ? { cursor } : {}) });
      for (const key of page.items) {
        if (Date.now() > deadline) {
          out.unfinished = true;
          return out;
        }
        await this.revokeForPrefix(key.slice('lease/'.length), force, out);
      }
      cursor = page.cursor;
    } while (cursor);
    return out;
  }

  /** Revokes one lease, deleting it even when its engine fails (revoke-force on an exact id). */
  async revokeForced(id: string): Promise<void> {
    await this.revokeForPrefix(id, true, { revoked: 0, errors: [], unfinished: false });
  }

  private async revokeForPrefix(id: string, force: boolean, out: PrefixRevocation): Promise<void> {
    const item = await this.part.get<LeaseRecord>(leaseKey(id));
    if (!item) return;
    try {
      await this.attempt(item.value, item.version, false);
      out.revoked++;
    } catch (e) {
      if (force) {
        await this.drop(item.value);
        out.revoked++;
      } else out.errors.push(`${item.value.lease_id}: ${e instanceof Error ? e.message : String(e)}`.slice(0, 300));
    }
  }

  private async get(id: string) {
    if (!id || id.length > 900) throw new InvalidInput('invalid lease id');
    const item = await this.part.get<LeaseRecord>(leaseKey(id));
    if (!item) throw new InvalidInput('invalid lease');
    return item;
  }

  private indexOf(r: LeaseRecord) {
    return { name: LEASE_EXPIRY_INDEX, sort: `${expirySort(r.next_attempt)}#${r.lease_id}` };
  }
}
