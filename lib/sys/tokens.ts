/**
 * Tokens. A token is 256 random bits; the table holds only its HMAC (keyed by a sealed
 * service key) and its accessor. Creation writes the accessor, the path and parent links and
 * the token together (or the token last), so a crash never leaves a usable token that cannot be
 * found and revoked.
 * Liveness and revocation across the tree of tokens are token-tree.ts's.
 */
import { metrics } from '../metrics/catalog';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConflictError, ExistsError, Forbidden, InvalidInput } from '../domain-errors';
import type { Sealer, SealedValue } from '../keys/sealed';
import { mutate, type IndexEntry, type Json, type Partition, type StoredItem, type TransactWrite } from '../store/store';
import { authCacheMs, TtlCache } from '../ttl-cache';
import { calculateTtl } from './token-ttl';
import { newTokenRecord, type CreateTokenInput, type TokenRecord } from './token-record';
import {
  expirySort,
  TOKEN_EXPIRY_INDEX,
  TokenTree,
  type AccessorItem,
  type LiveItem,
  type PrefetchedItems,
  type RevokeMode,
} from './token-tree';

export type { CreateTokenInput, TokenRecord } from './token-record';
export { expirySort, TOKEN_EXPIRY_INDEX } from './token-tree';

/** The one refusal of a root token from anywhere else. */
export const NO_ROOT_TOKENS = 'auth methods cannot create root tokens';

/** What a renewal obeys beyond the record: a token role's current settings. */
export interface RenewLimits {
  period?: number;
  explicitMaxTtl?: number;
  maxTtl?: number;
}

const HMAC_KEY = 'config/token-hmac-key';
const TOKEN_PREFIX = 'lk.';
const pathKey = (path: string, accessor: string) => `bypath/${path.replace(/\/*$/, '/')}${accessor}`;
/**
 * The accessors above a token as its record names them: `ancestors` (parent first) on records
 * made since it was kept, else the parent alone. A hint for reading ahead only: liveness follows
 * each accessor item's own parent.
 */
function ancestorsHint(record: TokenRecord): string[] {
  if (Array.isArray(record.ancestors)) return record.ancestors.filter((a): a is string => typeof a === 'string').slice(0, 64);
  return record.parent ? [record.parent] : [];
}

/** How long an interactive revocation works before leaving the rest to the sweeper. */
const REVOKE_BUDGET_MS = 20_000;

export interface RevokeOptions {
  /** Revoke the token alone; its children become orphans (revoke-orphan). */
  orphanChildren?: boolean;
  budgetMs?: number;
}

export class Tokens {
  private key?: Promise<Buffer>;
  /** Live records of unlimited-use tokens, briefly: most requests then read no token item. */
  private readonly cache = new TtlCache<string, { value: TokenRecord; version: number }>(authCacheMs());
  readonly tree: TokenTree;

  /**
   * @param readMany reads items of this partition together (one BatchGetItem deployed); by default
   *   one get each, all at once.
   * @param transact the store's all-or-nothing write: a new token's items in one round trip.
   */
  constructor(
    private readonly part: Partition,
    private readonly sealer: Sealer,
    private readonly now: () => number,
    private readonly readMany: (keys: string[]) => Promise<(StoredItem | undefined)[]> = (keys) =>
      Promise.all(keys.map((k) => part.get(k))),
    private readonly transact?: (writes: readonly TransactWrite[]) => Promise<number[]>,
  ) {
    this.tree = new TokenTree(part, now);
  }

  /** Creates the HMAC key once (the first writer wins; everyone reads the winner's). */
  async ensureKey(): Promise<void> {
    if (await this.part.get(HMAC_KEY)) return;
    const sealed = await this.sealer.seal(randomBytes(32), 'sys', HMAC_KEY);
    try {
      await this.part.put(HMAC_KEY, { ...sealed }, { ifAbsent: true });
    } catch (e) {
      if (!(e instanceof ExistsError)) throw e;
    }
  }

  async hasKey(): Promise<boolean> {
    return (await this.part.get(HMAC_KEY)) !== undefined;
  }

  private hmacKey(): Promise<Buffer> {
    this.key ??= (async () => {
      const item = await this.part.get<SealedValue>(HMAC_KEY);
      if (!item) throw new Error('the service is not initialized: no token key');
      return this.sealer.open(item.value, HMAC_KEY);
    })();
    this.key.catch(() => (this.key = undefined));
    return this.key;
  }

  private async idOf(token: string): Promise<string> {
    return createHmac('sha256', await this.hmacKey())
      .update(token)
      .digest('hex');
  }

  async create(input: CreateTokenInput): Promise<{ token: string; record: TokenRecord }> {
    if (input.policies.some((p) => p.toLowerCase() === 'root') && input.allowRoot !== true) throw new Forbidden(NO_ROOT_TOKENS);
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const accessor = randomBytes(18).toString('base64url');
    const id = await this.idOf(token);
    const record = newTokenRecord(input, { id, accessor, now: Math.floor(this.now() / 1000) });
    await this.putNewToken(record);
    metrics.auth.tokensCreated.inc({ kind: input.policies.includes('response-wrapping') ? 'wrapping' : 'service' });
    return { token, record };
  }

  /**
   * A new token's items: its accessor (in the expiry index when it expires), its creation path
   * and its parent's link, and the token itself. In one transaction where the store has them
   * (all new keys, so each is `ifAbsent`: no read first); else one after the other, the token
   * last, so a crash never leaves a usable token that cannot be found and revoked.
   */
  private async putNewToken(record: TokenRecord): Promise<void> {
    const { id, accessor } = record;
    const index = record.expire_time ? { name: TOKEN_EXPIRY_INDEX, sort: expirySort(record.expire_time) } : null;
    const link: AccessorItem = { id, expire_time: record.expire_time, parent: record.parent, path: record.path };
    const items: { key: string; value: Json; index?: IndexEntry | null }[] = [
      { key: `accessor/${accessor}`, value: link, index },
      // By creation path, for revoke-prefix on auth/token/create/<role>.
      { key: pathKey(record.path, accessor), value: { accessor } },
      ...(record.parent ? [{ key: `child/${record.parent}/${accessor}`, value: { accessor } }] : []),
      { key: `token/${id}`, value: record },
    ];
    if (this.transact) {
      await this.transact(items.map((i) => ({ partition: this.part.name, ...i, ifAbsent: true })));
      return;
    }
    for (const i of items) await this.part.put(i.key, i.value, { ifAbsent: true, ...(i.index !== undefined ? { index: i.index } : {}) });
  }

  /**
   * The live record for a token, or undefined (unknown, malformed, expired, used up, revoked
   * with an ancestor). Two round trips at most when nothing is cached: the token's record, then
   * together its accessor item, its ancestors' (as its record names them) and the items
   * `alsoRead` names for it (its policies, for a check), returned as `read`.
   */
  async lookup(
    token: string,
    alsoRead: (record: TokenRecord) => string[] = () => [],
  ): Promise<{ record: TokenRecord; version: number; read: PrefetchedItems; chain: LiveItem[] } | undefined> {
    const found = await this.recordOf(token);
    if (!found) return undefined;
    const keys = [...new Set([...this.tree.prefetchKeys(found.record.accessor, ancestorsHint(found.record)), ...alsoRead(found.record)])];
    const items = keys.length ? await this.readMany(keys) : [];
    const read = new Map(keys.map((k, i) => [k, items[i]]));
    const chain = await this.tree.liveChain(found.record.accessor, false, read);
    if (!chain) return undefined;
    return { ...found, read, chain };
  }

  /** The stored record for a token whether or not it is still live (to resume its revocation). */
  async recordOf(token: string): Promise<{ record: TokenRecord; version: number } | undefined> {
    if (!token.startsWith(TOKEN_PREFIX) || token.length > 128) return undefined;
    const id = await this.idOf(token);
    let item = this.cache.get(id);
    if (!item) {
      item = await this.part.get<TokenRecord>(`token/${id}`);
      if (!item) return undefined;
      // Tokens with num_uses are counted on every use, so they are always read afresh.
      if (!item.value.num_uses) this.cache.set(id, item);
    }
    if (!timingSafeEqual(Buffer.from(item.value.id, 'hex'), Buffer.from(id, 'hex'))) return undefined;
    // An expired token is due in the expiry index: the sweeper revokes it and its tree.
    return { record: item.value, version: item.version };
  }

  /** Whether a token and its ancestors are live, read past any cache (for owners of new leases). */
  async accessorLive(accessor: string): Promise<boolean> {
    return this.tree.live(accessor, true);
  }

  async byAccessor(accessor: string): Promise<TokenRecord | undefined> {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(accessor)) return undefined;
    const link = await this.part.get<{ id: string }>(`accessor/${accessor}`);
    if (!link) return undefined;
    return (await this.part.get<TokenRecord>(`token/${link.value.id}`))?.value;
  }

  /**
   * Counts one use of a token with num_uses (the last use revokes it). Returns false when
   * concurrent callers took the remaining uses first. Retries lost races on the version.
   */
  async use(record: TokenRecord, version: number): Promise<boolean> {
    if (!record.num_uses) return true;
    let current: { value: TokenRecord; version: number } | undefined = { value: record, version };
    for (let attempt = 0; attempt < 50 && current; attempt++) {
      const r: TokenRecord = current.value;
      try {
        if (r.num_uses === 1) {
          await this.part.delete(`token/${r.id}`, { ifVersion: current.version });
          await this.revoke(r);
        } else {
          await this.part.put(`token/${r.id}`, { ...r, num_uses: r.num_uses - 1 }, { ifVersion: current.version });
        }
        return true;
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        await new Promise((res) => setTimeout(res, Math.random() * 3 * (attempt + 1)));
        current = await this.part.get<TokenRecord>(`token/${r.id}`);
      }
    }
    return false;
  }

  /**
   * Revokes the token, its leases and (unless orphanChildren) every token created from it.
   * The first write makes all of them unusable; the rest is resumable (token-tree.ts). Returns
   * false when the budget ran out first: the sweeper finishes within a minute.
   */
  async revoke(record: Pick<TokenRecord, 'id' | 'accessor'>, options: RevokeOptions = {}): Promise<boolean> {
    this.cache.delete(record.id);
    const mode: RevokeMode = options.orphanChildren ? 'orphan' : 'tree';
    return this.tree.revoke(record.accessor, mode, Date.now() + (options.budgetMs ?? REVOKE_BUDGET_MS));
  }

  async renew(record: TokenRecord, increment: number | undefined, limits: RenewLimits = {}): Promise<TokenRecord> {
    if (!record.expire_time) return record;
    if (!record.renewable) throw new InvalidInput('this token is not renewable');
    const now = Math.floor(this.now() / 1000);
    const { ttl } = calculateTtl({
      increment: increment ?? 0,
      ttl: record.creation_ttl,
      period: limits.period ?? record.period ?? 0,
      explicitMaxTtl: limits.explicitMaxTtl ?? record.explicit_max_ttl,
      maxTtl: limits.maxTtl ?? 0,
      start: record.creation_time,
      now,
    });
    const next: TokenRecord = { ...record, expire_time: now + ttl, last_renewal_time: now };
    this.cache.delete(record.id);
    // The accessor item first, and never over a revocation mark written meanwhile.
    const moved = await mutate<AccessorItem>(
      this.part,
      `accessor/${record.accessor}`,
      (cur) => (cur && !cur.revoking ? { ...cur, expire_time: next.expire_time } : undefined),
      { index: (v) => ({ name: TOKEN_EXPIRY_INDEX, sort: expirySort(v.expire_time) }) },
    );
    if (!moved) throw new Forbidden('permission denied: invalid or expired token');
    this.tree.forget(record.accessor);
    await this.part.put(`token/${record.id}`, next);
    return next;
  }

  /**
   * Revokes every token created on a path under `prefix` (e.g. `auth/token/create/<role>/`),
   * with its tree. Returns how many were revoked.
   */
  async revokeByPathPrefix(prefix: string): Promise<number> {
    let n = 0;
    for (;;) {
      const page = await this.part.list<{ accessor: string }>(`bypath/${prefix}`, { limit: 100 });
      if (!page.items.length) return n;
      for (const link of page.items) {
        if (await this.tree.revoke(link.value.accessor, 'tree', Date.now() + REVOKE_BUDGET_MS)) n++;
        await this.part.delete(link.key);
      }
    }
  }

  /** Accessors of tokens due by `now`: expired, or whose revocation is to be finished (sweeper). */
  async expired(limit: number): Promise<string[]> {
    const page = await this.part.queryIndex<{ id: string }>(TOKEN_EXPIRY_INDEX, {
      to: expirySort(Math.floor(this.now() / 1000)),
      limit,
    });
    return page.items.map((i) => i.key.slice('accessor/'.length));
  }

  /** Revokes (or finishes revoking) a due token by its accessor (sweeper). */
  async sweep(accessor: string, budgetMs = REVOKE_BUDGET_MS): Promise<boolean> {
    const mode = await this.tree.modeOf(accessor);
    if (!mode) return true;
    return this.tree.revoke(accessor, mode, Date.now() + budgetMs);
  }
}
