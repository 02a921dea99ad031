/** A token's stored record (under the HMAC of the token, never the token), what a new one is made from, and its first record. */

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
  /** Where the token may be used from (CIDR blocks); empty or absent: anywhere. */
  bound_cidrs?: string[];
  /**
   * The accessors above the token, parent first, when all are known (the parent's record has
   * them, or there is no parent): its liveness check reads them ahead in one batch.
   */
  ancestors?: string[];
  /** The login identity (auth methods): the alias name and mount accessor templates read. */
  alias?: { mount_accessor: string; mount_type: string; name: string; metadata: Record<string, string> };
  /**
   * Set only by the makers of root tokens (initialisation, generate-root, and `auth/token/create`
   * called with a root token): without it a token carrying `root` is never made.
   */
  allowRoot?: true;
}

/** A new token's record: the input's settings, created `now` (seconds), expiring after its TTL (0: never). */
export function newTokenRecord(input: CreateTokenInput, made: { id: string; accessor: string; now: number }): TokenRecord {
  const { id, accessor, now } = made;
  return {
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
    ...(input.bound_cidrs?.length ? { bound_cidrs: input.bound_cidrs } : {}),
    ...(input.ancestors && input.parent ? { ancestors: input.ancestors.slice(0, 64) } : {}),
    ...(input.alias
      ? {
          alias_mount_accessor: input.alias.mount_accessor,
          alias_mount_type: input.alias.mount_type,
          alias_name: input.alias.name,
          alias_metadata: input.alias.metadata,
        }
      : {}),
  };
}

/** What a child of `record` records as its ancestors: the record's accessor and its own ancestors, when they are known. */
export function ancestorsOfChild(record: Pick<TokenRecord, 'accessor' | 'parent'> & { ancestors?: unknown }): string[] | undefined {
  if (!record.parent) return [record.accessor];
  if (!Array.isArray(record.ancestors)) return undefined;
  return [record.accessor, ...record.ancestors.filter((a): a is string => typeof a === 'string')];
}
