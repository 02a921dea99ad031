/** The reference server's wire shapes of a token (lookup data, auth block) and of a token role. */
import type { TokenRole } from '../token-roles';
import type { TokenRecord } from '../tokens';

const iso = (s: number) => new Date(s * 1000).toISOString();

/** Lookup data. `token` is echoed only to whoever presented it. */
export function tokenData(r: TokenRecord, now: number, token?: string): Record<string, unknown> {
  const lastRenewal = Number(r.last_renewal_time ?? 0);
  return {
    accessor: r.accessor,
    creation_time: r.creation_time,
    creation_ttl: r.creation_ttl,
    display_name: r.display_name,
    entity_id: '',
    expire_time: r.expire_time ? iso(r.expire_time) : null,
    explicit_max_ttl: r.explicit_max_ttl,
    id: token ?? '',
    issue_time: iso(r.creation_time),
    meta: Object.keys(r.meta).length ? r.meta : null,
    num_uses: r.num_uses,
    orphan: r.parent === '',
    path: r.path,
    policies: r.policies,
    renewable: r.renewable && r.expire_time !== 0,
    ttl: r.expire_time ? Math.max(0, r.expire_time - Math.floor(now / 1000)) : 0,
    type: 'service',
    ...(r.role ? { role: r.role } : {}),
    ...(r.period ? { period: r.period } : {}),
    ...(lastRenewal ? { last_renewal_time: lastRenewal, last_renewal: iso(lastRenewal) } : {}),
  };
}

/** The auth block of a create or renew: the lease is what was granted then, not what is left now. */
export function authBlock(token: string, r: TokenRecord): Record<string, unknown> {
  return {
    client_token: token,
    accessor: r.accessor,
    policies: r.policies,
    token_policies: r.policies,
    metadata: Object.keys(r.meta).length ? r.meta : null,
    lease_duration: r.expire_time ? r.expire_time - Number(r.last_renewal_time ?? r.creation_time) : 0,
    renewable: r.renewable,
    entity_id: '',
    token_type: 'service',
    orphan: r.parent === '',
    mfa_requirement: null,
    num_uses: r.num_uses,
  };
}

/** A role as `auth/token/roles/<name>` reads it back (token_ttl/token_max_ttl are Latchkey's own). */
export function roleData(r: TokenRole): Record<string, unknown> {
  return {
    allowed_entity_aliases: null,
    allowed_policies: r.allowedPolicies,
    allowed_policies_glob: r.allowedPoliciesGlob,
    disallowed_policies: r.disallowedPolicies,
    disallowed_policies_glob: r.disallowedPoliciesGlob,
    explicit_max_ttl: r.explicitMaxTtl,
    name: r.name,
    orphan: r.orphan,
    path_suffix: r.pathSuffix,
    period: r.period,
    renewable: r.renewable,
    token_explicit_max_ttl: r.tokenExplicitMaxTtl,
    token_max_ttl: r.tokenMaxTtl,
    token_no_default_policy: r.tokenNoDefaultPolicy,
    token_period: r.tokenPeriod,
    token_ttl: r.tokenTtl,
    token_type: r.tokenType,
    ...(r.tokenNumUses > 0 ? { token_num_uses: r.tokenNumUses } : {}),
  };
}
