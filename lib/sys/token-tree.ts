/**
 * The token tree: whether a token is live given its ancestors, and revocation that a crash at
 * any moment cannot leave half done.
 *
 * Each token has an accessor item (`accessor/<a>`: its id, expiry and parent's accessor) in the
 * token-expiry index. Revocation first marks that item `revoking` and makes it due now in the
 * index: from that single write on, the token and every descendant fail the liveness walk, and
 * the sweeper (which takes due items from the index) finishes whatever a crash interrupts.
 * Then, children first (depth first), their leases, the token record, and the accessor item
 * last. Retrying the same call resumes the same way.
 */
import { metrics } from '../metrics/catalog';
import { mutate, type Json, type Partition, type StoredItem } from '../store/store';
import { authCacheMs, TtlCache } from '../ttl-cache';

export type RevokeMode = 'tree' | 'orphan';

export type AccessorItem = { [k: string]: Json } & {
  id: string;
  expire_time: number;
  /** The parent's accessor ('' for an orphan). Items written before it lack it. */
  parent?: string;
  /** tree: the token and its descendants; orphan: the token alone, its children re-parented. */
  revoking?: RevokeMode;
  /** The creation path (auth/token/create[/<role>]); items written before it lack it. */
  path?: string;
};

export const TOKEN_EXPIRY_INDEX = 'token-expiry';

/** An item of the sys partition as a check found it: its key and version. */
export interface LiveItem {
  key: string;
  version: number;
}

/** Items of the sys partition read together ahead of a check, by key (undefined: absent). */
export type PrefetchedItems = ReadonlyMap<string, StoredItem | undefined>;
export const expirySort = (seconds: number) => String(seconds).padStart(12, '0');
const MAX_DEPTH = 64;

/** Revokes the leases a token owns; false when the deadline came first (to be resumed). */
export type OwnedLeaseRevoker = (accessor: string, deadline: number) => Promise<boolean>;

export class TokenTree {
  /** Accessor items with their versions (null: none), briefly, for the liveness walk. */
  private readonly states = new TtlCache<string, StoredItem<AccessorItem> | null>(authCacheMs());
  private leaseRevoker?: OwnedLeaseRevoker;

  constructor(
    private readonly part: Partition,
    private readonly now: () => number,
  ) {}

  useLeaseRevoker(r: OwnedLeaseRevoker): void {
    this.leaseRevoker = r;
  }

  /**
   * An accessor item: from `read` (items read just now, together with others: see prefetchKeys)
   * when it holds it, else the cache (unless `fresh`), else the store.
   */
  private async state(accessor: string, fresh: boolean, read?: PrefetchedItems): Promise<StoredItem<AccessorItem> | null> {
    const key = `accessor/${accessor}`;
    if (read?.has(key)) {
      const item = (read.get(key) as StoredItem<AccessorItem> | undefined) ?? null;
      this.states.set(accessor, item);
      return item;
    }
    if (!fresh) {
      const hit = this.states.get(accessor);
      if (hit !== undefined) return hit;
    }
    const item = (await this.part.get<AccessorItem>(key)) ?? null;
    this.states.set(accessor, item);
    return item;
  }

  /**
   * The accessor items `live` will read for a token (its own and its ancestors', as far as its
   * record names them), minus those cached: read together (one batch) and passed to `live`, the
   * walk costs one round trip. The walk still follows each item's own `parent`: an ancestor the
   * record names wrongly (a parent revoked as an orphan) is read on its own.
   */
  prefetchKeys(accessor: string, ancestors: readonly string[]): string[] {
    return [accessor, ...ancestors].filter((a) => this.states.get(a) === undefined).map((a) => `accessor/${a}`);
  }

  /**
   * Whether the token with this accessor and all its ancestors are live: none missing, being
   * revoked with its tree, or expired. `fresh` reads past the in-process cache.
   */
  async live(accessor: string, fresh = false, read?: PrefetchedItems): Promise<boolean> {
    return (await this.liveChain(accessor, fresh, read)) !== undefined;
  }

  /**
   * The accessor items (key and version) that found the token live, itself first; undefined when
   * it is not. A write that must not outlive the token (a lease it owns) is conditioned on them
   * being unchanged: a revocation marks the revoked token's item first.
   */
  async liveChain(accessor: string, fresh = false, read?: PrefetchedItems): Promise<LiveItem[] | undefined> {
    const chain: LiveItem[] = [];
    let acc = accessor;
    for (let depth = 0; depth < MAX_DEPTH; depth++) {
      const stored = await this.state(acc, fresh, read);
      if (!stored) return undefined;
      chain.push({ key: `accessor/${acc}`, version: stored.version });
      const s = stored.value;
      // A token revoked alone takes only itself: its children are being made orphans.
      if (s.revoking === 'tree' || (depth === 0 && s.revoking)) return undefined;
      if (s.expire_time && s.expire_time * 1000 <= this.now()) return undefined;
      const parent = s.parent ?? (await this.legacyParent(s.id));
      if (!parent) return chain;
      acc = parent;
    }
    return undefined;
  }

  private async legacyParent(id: string): Promise<string> {
    return (await this.part.get<{ parent?: string }>(`token/${id}`))?.value.parent ?? '';
  }

  /** Revokes a token: its children too (tree) or re-parented as orphans. False if the deadline cut it short. */
  async revoke(accessor: string, mode: RevokeMode, deadline: number): Promise<boolean> {
    await this.mark(accessor, mode);
    return this.finish(accessor, mode, deadline);
  }

  /** The write-ahead step: revoking, and due now for the sweeper. A tree mark is never weakened. */
  private async mark(accessor: string, mode: RevokeMode): Promise<void> {
    const due = Math.floor(this.now() / 1000);
    await mutate<AccessorItem>(
      this.part,
      `accessor/${accessor}`,
      (cur) => (!cur || cur.revoking === 'tree' || cur.revoking === mode ? undefined : { ...cur, revoking: mode }),
      { index: () => ({ name: TOKEN_EXPIRY_INDEX, sort: expirySort(due) }) },
    );
    this.states.delete(accessor);
  }

  private async finish(accessor: string, mode: RevokeMode, deadline: number): Promise<boolean> {
    const prefix = `child/${accessor}/`;
    for (;;) {
      const page = await this.part.list<{ accessor: string }>(prefix, { limit: 100 });
      if (!page.items.length) break;
      for (const link of page.items) {
        if (Date.now() > deadline) return false;
        const child = link.value.accessor;
        if (mode === 'orphan') await this.reparent(child);
        else if (!(await this.finish(child, 'tree', deadline))) return false;
        await this.part.delete(link.key);
      }
    }
    if (this.leaseRevoker && !(await this.leaseRevoker(accessor, deadline))) return false;
    await this.part.delete(`wrapped/${accessor}`);
    const item = await this.part.get<AccessorItem>(`accessor/${accessor}`);
    if (item) await this.part.delete(`token/${item.value.id}`);
    if (item?.value.path) await this.part.delete(`bypath/${item.value.path.replace(/\/*$/, '/')}${accessor}`);
    if (await this.part.delete(`accessor/${accessor}`)) metrics.auth.tokensRevoked.inc();
    this.states.delete(accessor);
    return true;
  }

  /** Makes a child an orphan: its accessor item first (what the liveness walk reads), then its record. */
  private async reparent(child: string): Promise<void> {
    const item = await mutate<AccessorItem>(
      this.part,
      `accessor/${child}`,
      (cur) => (cur && cur.parent !== '' ? { ...cur, parent: '' } : undefined),
      {
        index: (v) => (v.expire_time ? { name: TOKEN_EXPIRY_INDEX, sort: expirySort(v.expire_time) } : null),
      },
    );
    this.states.delete(child);
    const id = item?.id ?? (await this.part.get<AccessorItem>(`accessor/${child}`))?.value.id;
    if (id)
      await mutate<{ parent: string }>(this.part, `token/${id}`, (cur) => (cur && cur.parent !== '' ? { ...cur, parent: '' } : undefined));
  }

  /** Forgets what this process cached of a token (after its own writes). */
  forget(accessor: string): void {
    this.states.delete(accessor);
  }

  /** The mode a due accessor item is to be finished in: its mark, or tree for an expired token. */
  async modeOf(accessor: string): Promise<RevokeMode | undefined> {
    const s = await this.state(accessor, true);
    return s ? (s.value.revoking ?? 'tree') : undefined;
  }
}
