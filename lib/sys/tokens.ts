/**
 * Tokens. A token is 256 random bits; the table holds only its HMAC (keyed by a sealed
 * service key) and its accessor. Creation writes the accessor and the parent link before the
 * token itself, so a crash never leaves a usable token that cannot be found and revoked.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { BadRequest, ConflictError, ExistsError } from '../errors';
import type { Sealer, SealedValue } from '../keys/sealed';
import type { Partition } from '../store/store';
import { authCacheMs, TtlCache } from '../ttl-cache';
import { calculateTtl } from './token-ttl';

export interface TokenRecord {
  id: string;
  accessor: string;
  policies: string[];
  display_name: string;
  meta: Record<string, string>;
  num_uses: number;
  /** seconds since the epoch */
  creation_time: number;
  creation_ttl: number;
  /** seconds since the epoch; 0 = never */
  expire_time: number;
  explicit_max_ttl: number;
  renewable: boolean;
  parent: string;
  path: string;
  /** Seconds; renewals grant exactly this, with no limit but explicit_max_ttl. Records written before it lack it: read with `?? 0`. */
  period: number;
  /** The token role it was created against, or ''. Records written before it lack it: read with `?? ''`. */
  role: string;
  [k: string]: string | number | boolean | string[] | Record<string, string>;
}

export interface CreateTokenInput {
  policies: string[];
  display_name: string;
  meta: Record<string, string>;
  num_uses: number;
  ttl: number;
  explicit_max_ttl: number;
  renewable: boolean;
  parent: string;
  path: string;
  period?: number;
  role?: string;
}

/** What a renewal obeys beyond the record: a token role's current settings. */
export interface RenewLimits {
  period?: number;
  explicitMaxTtl?: number;
  maxTtl?: number;
}

const HMAC_KEY = 'config/token-hmac-key';
export const TOKEN_EXPIRY_INDEX = 'token-expiry';
const TOKEN_PREFIX = 'lk.';

export const expirySort = (seconds: number) => String(seconds).padStart(12, '0');

export class Tokens {
  private key?: Promise<Buffer>;
  /** Live records of unlimited-use tokens, briefly: most requests then read no token item. */
  private readonly cache = new TtlCache<string, { value: TokenRecord; version: number }>(authCacheMs());

  constructor(
    private readonly part: Partition,
    private readonly sealer: Sealer,
    private readonly now: () => number,
  ) {}

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
    return createHmac('sha256', await this.hmacKey()).update(token).digest('hex');
  }

  async create(input: CreateTokenInput): Promise<{ token: string; record: TokenRecord }> {
    const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const accessor = randomBytes(18).toString('base64url');
    const id = await this.idOf(token);
    const now = Math.floor(this.now() / 1000);
    const record: TokenRecord = {
      id,
      accessor,
      policies: input.policies,
      display_name: input.display_name,
      meta: input.meta,
      num_uses: input.num_uses,
      creation_time: now,
      creation_ttl: input.ttl,
      expire_time: input.ttl ? now + input.ttl : 0,
      explicit_max_ttl: input.explicit_max_ttl,
      renewable: input.renewable,
      parent: input.parent,
      path: input.path,
      period: input.period ?? 0,
      role: input.role ?? '',
    };
    const index = record.expire_time ? { name: TOKEN_EXPIRY_INDEX, sort: expirySort(record.expire_time) } : null;
    await this.part.put(`accessor/${accessor}`, { id, expire_time: record.expire_time }, { ifAbsent: true, index });
    if (input.parent) await this.part.put(`child/${input.parent}/${accessor}`, { accessor });
    await this.part.put(`token/${id}`, record, { ifAbsent: true });
    return { token, record };
  }

  /** The live record for a token, or undefined (unknown, malformed, expired, used up). */
  async lookup(token: string): Promise<{ record: TokenRecord; version: number } | undefined> {
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
    const r = item.value;
    if (r.expire_time && r.expire_time * 1000 <= this.now()) {
      await this.revoke(r).catch(() => undefined);
      return undefined;
    }
    return { record: r, version: item.version };
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

  /** Revokes the token and, recursively, every token created from it. */
  async revoke(record: TokenRecord): Promise<void> {
    this.cache.delete(record.id);
    await this.part.delete(`token/${record.id}`);
    for (;;) {
      const page = await this.part.list<{ accessor: string }>(`child/${record.accessor}/`, { limit: 100 });
      if (!page.items.length) break;
      for (const child of page.items) {
        const rec = await this.byAccessor(child.value.accessor);
        if (rec) await this.revoke(rec);
        else await this.part.delete(`accessor/${child.value.accessor}`);
        await this.part.delete(child.key);
      }
    }
    await this.part.delete(`accessor/${record.accessor}`);
  }

  async renew(record: TokenRecord, increment: number | undefined, limits: RenewLimits = {}): Promise<TokenRecord> {
    if (!record.expire_time) return record;
    if (!record.renewable) throw new BadRequest('this token is not renewable');
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
    await this.part.put(`token/${record.id}`, next);
    await this.part.put(
      `accessor/${record.accessor}`,
      { id: record.id, expire_time: next.expire_time },
      { index: { name: TOKEN_EXPIRY_INDEX, sort: expirySort(next.expire_time) } },
    );
    return next;
  }

  /** Accessor entries of tokens that expired by `now` (for the sweeper). */
  async expired(limit: number): Promise<string[]> {
    const page = await this.part.queryIndex<{ id: string }>(TOKEN_EXPIRY_INDEX, {
      to: expirySort(Math.floor(this.now() / 1000)),
      limit,
    });
    return page.items.map((i) => i.key.slice('accessor/'.length));
  }

  /** Removes an expired token by its accessor (sweeper). */
  async sweep(accessor: string): Promise<void> {
    const rec = await this.byAccessor(accessor);
    if (rec) await this.revoke(rec);
    else await this.part.delete(`accessor/${accessor}`);
  }
}
