/**
 * The token settings every auth method's role carries (the reference's tokenutil fields):
 * declared once, parsed once, merged on update, read back in the reference's names.
 */
import { SYSTEM_MAX_LEASE_TTL } from '../config';
import { InvalidInput } from '../domain-errors';
import { f } from '../http/fields';
import { validateCidrs } from '../net/cidr';
import { NO_ROOT_TOKENS } from '../sys/tokens';

export const tokenFields = {
  token_policies: f.list({ foldCase: true, description: 'policies of the tokens a login gets' }),
  policies: f.list({ foldCase: true, aliasOf: 'token_policies', description: 'deprecated alias of token_policies' }),
  token_ttl: f.duration({ description: 'default TTL of the tokens' }),
  token_max_ttl: f.duration({ description: 'maximum lifetime of the tokens, renewals included' }),
  token_explicit_max_ttl: f.duration({ description: 'hard cap on the tokens lifetime' }),
  token_period: f.duration({ description: 'makes the tokens periodic' }),
  token_num_uses: f.int({ min: 0, description: 'uses per token (0: unlimited)' }),
  token_bound_cidrs: f.list({ compareAs: 'address', description: 'CIDR blocks the tokens may be used from' }),
  token_no_default_policy: f.bool({ description: 'leave out the default policy' }),
  token_type: f.string({ description: 'service or default (batch tokens are not supported)' }),
};

export type TokenSettings = {
  policies: string[];
  ttl: number;
  maxTtl: number;
  explicitMaxTtl: number;
  period: number;
  numUses: number;
  boundCidrs: string[];
  noDefaultPolicy: boolean;
};

export const NO_TOKEN_SETTINGS: TokenSettings = {
  policies: [],
  ttl: 0,
  maxTtl: 0,
  explicitMaxTtl: 0,
  period: 0,
  numUses: 0,
  boundCidrs: [],
  noDefaultPolicy: false,
};

type TokenData = {
  token_policies?: string[] | undefined;
  policies?: string[] | undefined;
  token_ttl?: number | undefined;
  token_max_ttl?: number | undefined;
  token_explicit_max_ttl?: number | undefined;
  token_period?: number | undefined;
  token_num_uses?: number | undefined;
  token_bound_cidrs?: string[] | undefined;
  token_no_default_policy?: boolean | undefined;
  token_type?: string | undefined;
};

/** The settings after a write: the given fields over the current ones (or the defaults). */
export function mergeTokenSettings(current: TokenSettings | undefined, d: TokenData): TokenSettings {
  const s: TokenSettings = { ...(current ?? NO_TOKEN_SETTINGS) };
  if (d.token_type !== undefined && !['', 'service', 'default', 'default-service'].includes(d.token_type)) {
    throw new InvalidInput(`token_type "${d.token_type.slice(0, 20)}" is not supported: only service tokens`);
  }
  const policies = d.token_policies ?? d.policies;
  if (policies !== undefined) s.policies = [...new Set(policies.map((p) => p.trim().toLowerCase()).filter(Boolean))];
  if (s.policies.includes('root')) throw new InvalidInput(`${NO_ROOT_TOKENS}: a login role may not carry the "root" policy`);
  if (d.token_ttl !== undefined) s.ttl = d.token_ttl;
  if (d.token_max_ttl !== undefined) s.maxTtl = d.token_max_ttl;
  if (d.token_explicit_max_ttl !== undefined) s.explicitMaxTtl = d.token_explicit_max_ttl;
  if (d.token_period !== undefined) s.period = d.token_period;
  if (d.token_num_uses !== undefined) s.numUses = d.token_num_uses;
  if (d.token_bound_cidrs !== undefined)
    s.boundCidrs = validateCidrs(d.token_bound_cidrs.map((c) => c.trim()).filter(Boolean), 'token_bound_cidrs');
  if (d.token_no_default_policy !== undefined) s.noDefaultPolicy = d.token_no_default_policy;
  for (const [name, v] of [
    ['token_ttl', s.ttl],
    ['token_max_ttl', s.maxTtl],
    ['token_explicit_max_ttl', s.explicitMaxTtl],
    ['token_period', s.period],
  ] as const) {
    if (v > SYSTEM_MAX_LEASE_TTL) throw new InvalidInput(`${name} must not exceed the system maximum of ${SYSTEM_MAX_LEASE_TTL}s`);
  }
  if (s.maxTtl && s.ttl > s.maxTtl) throw new InvalidInput('token_ttl must not be greater than token_max_ttl');
  return s;
}

/** The settings in the reference's read-back names. */
export function tokenSettingsData(s: TokenSettings): Record<string, unknown> {
  return {
    token_policies: s.policies,
    policies: s.policies,
    token_ttl: s.ttl,
    token_max_ttl: s.maxTtl,
    token_explicit_max_ttl: s.explicitMaxTtl,
    token_period: s.period,
    period: s.period,
    token_num_uses: s.numUses,
    token_bound_cidrs: s.boundCidrs,
    token_no_default_policy: s.noDefaultPolicy,
    token_type: 'default',
  };
}
