/**
 * The leases of one request's secret, made for the engine by the edge (as OpenBao's framework
 * makes a `Secret`'s lease): under the request's mount and path, owned by the caller's token.
 * An engine never fills in a lease record. It either returns its secret (`Result.secret`: what
 * revocation needs, the TTL) and the edge makes the lease after the handler, or, when the secret
 * must not exist without a lease (a key installed on a host, a cloud user), it asks for the lease
 * first: `grant` (the lease itself, write-ahead; `update` advances what it must undo) or
 * `writeAhead` (a provisional lease for the issuing steps, then the client's lease: the saga the
 * cloud engines share).
 */
import { logError } from '../log';
import type { Json, TransactWrite } from '../store/store';
import type { LeaseRecord, Leases } from './leases';
import type { LiveItem } from './token-tree';

/** Where a request's leases go: the mount, its engine type, the path under it, the owner token. */
export interface LeasePlace {
  mount: string;
  engine: string;
  /** The path under the mount, as the lease id shows it: "creds/<role>", "issue/<role>". */
  path: string;
  /** The accessor of the calling token; '' when there is none. */
  owner: string;
  /** The calling token's accessor items as its check found them live (its leases are written on condition they are unchanged). */
  ownerLiveAs?: readonly LiveItem[] | undefined;
}

/** A secret's lease terms: what its revocation undoes, and how long it lives. */
export interface SecretTerms {
  revoke: Json;
  ttl: number;
  /** The latest renewals may reach, in seconds from now; default the ttl. */
  maxTtl?: number;
  renewable?: boolean;
  /** Another path under the mount than the request's. */
  path?: string;
  /** The secret's own records, written with its lease in one transaction (new items: ifAbsent, so no read first). */
  records?: readonly TransactWrite[];
}

/** How long a provisional lease lets the issuing steps run before the sweeper undoes them. */
export const ISSUING_WINDOW = 300;

/** The record a retired provisional lease keeps: revokers treat it as nothing to undo. */
export type MovedRecord = { kind: 'moved'; to: string };

export const isMoved = (v: unknown): v is MovedRecord => (v as { kind?: unknown } | null)?.kind === 'moved';

export class SecretLeases {
  constructor(
    private readonly leases: Leases,
    private readonly place: LeasePlace,
  ) {}

  /** The lease of a secret: made before it exists (write-ahead) or after it was made (the edge, for `Result.secret`). */
  grant(t: SecretTerms): Promise<LeaseRecord> {
    return this.create(t, this.place.owner);
  }

  /**
   * A lease no token owns: revoking the caller's token does not reach it, and it is made even
   * when that token is gone (a lease with an owner is then refused and undone). Only for an undo
   * that must outlive the token: an SSH key installed after the token's revocation removed its
   * lease, whose removal failed, gets one due at once so the sweeper retries it (ssh/dynamic.ts).
   */
  grantUnowned(t: SecretTerms): Promise<LeaseRecord> {
    return this.create(t, '');
  }

  /** Replaces what a lease must undo, as issuing advances (the steps of a write-ahead issue). */
  update(leaseId: string, revoke: Json): Promise<void> {
    return this.leases.update(leaseId, revoke);
  }

  /** Whether the lease is still there (a revocation of its owner token removes it). */
  exists(leaseId: string): Promise<boolean> {
    return this.leases.exists(leaseId);
  }

  /** Revokes the lease now: its engine's revoker undoes what it names. */
  revoke(leaseId: string): Promise<void> {
    return this.leases.revoke(leaseId);
  }

  private create(t: SecretTerms, owner: string): Promise<LeaseRecord> {
    return this.leases.create({
      ...this.place,
      path: t.path ?? this.place.path,
      ttl: t.ttl,
      maxTtl: t.maxTtl ?? t.ttl,
      renewable: t.renewable ?? false,
      revoke: t.revoke,
      owner,
      ...(owner ? { ownerLiveAs: this.place.ownerLiveAs } : {}),
      ...(t.records ? { records: t.records } : {}),
    });
  }

  /**
   * Issues under a provisional lease naming what the steps create (`record`, undone by revoking
   * it; it expires after ISSUING_WINDOW, so a request that dies mid-way is cleaned up within
   * minutes). On success the client's lease holds the final terms and the provisional one
   * retires; on any failure the provisional lease is revoked (undoing what was made, or left to
   * the sweeper) and the error is thrown.
   */
  async writeAhead<T>(
    record: Json,
    issue: (provisional: LeaseRecord) => Promise<{ terms: SecretTerms; value: T }>,
  ): Promise<{ lease: LeaseRecord; value: T }> {
    const provisional = await this.grant({ revoke: record, ttl: ISSUING_WINDOW });
    try {
      const { terms, value } = await issue(provisional);
      return { lease: await this.finish(provisional, terms), value };
    } catch (e) {
      await this.leases
        .revoke(provisional.lease_id)
        .catch((err: unknown) => logError(`${this.place.engine}-undo-deferred`, { lease_id: provisional.lease_id }, err));
      throw e;
    }
  }

  /** The client's lease, holding the final terms; the provisional lease is retired. */
  private async finish(provisional: LeaseRecord, terms: SecretTerms): Promise<LeaseRecord> {
    const final = await this.grant(terms);
    try {
      await this.leases.update(provisional.lease_id, { kind: 'moved', to: final.lease_id });
    } catch (e) {
      // The provisional lease still owns the objects: the caller undoes them; drop the new lease too.
      await this.leases.revoke(final.lease_id).catch((err: unknown) => logError('lease-retire-fault', { lease_id: final.lease_id }, err));
      throw e;
    }
    // Nothing to undo any more; if this fails, the sweeper retires it when it expires.
    await this.leases
      .revoke(provisional.lease_id)
      .catch((err: unknown) => logError('lease-retire-fault', { lease_id: provisional.lease_id }, err));
    return final;
  }
}
