/**
 * The token a successful login gets: an orphan service token with the role's token settings,
 * the method's display name and metadata, and the login identity (the entity alias) that
 * identity templates and lookups read. One place for every auth method.
 */
import type { Result, ReqContext } from '../http/path';
import { authBlock } from '../sys/paths/token-shapes';
import { calculateTtl } from '../sys/token-ttl';
import { NO_ROOT_TOKENS } from '../sys/tokens';
import { InvalidInput } from '../domain-errors';
import type { AuthMount } from '../auth-mounts';
import type { TokenSettings } from './token-fields';
import { metrics } from '../metrics/catalog';

/** Runs a login, counting it by method and result (a refusal of any kind is a failure). */
export async function countedLogin<T>(method: string, run: () => Promise<T>): Promise<T> {
  try {
    const out = await run();
    metrics.auth.logins.inc({ method, result: 'success' });
    return out;
  } catch (e) {
    metrics.auth.logins.inc({ method, result: 'failure' });
    throw e;
  }
}

export interface LoginGrant {
  settings: TokenSettings;
  /** The method's part of the display name: `<mount path>-<this>`, or the mount path alone when empty. */
  displayName: string;
  /** Token metadata, shown in lookups (`role_name`, `account_id`, mapped claims…). */
  metadata: Record<string, string>;
  /** The identity's alias name (a role id, a canonical ARN, a user claim) and its metadata. */
  alias: { name: string; metadata: Record<string, string> };
  /** Extra policies the login itself grants (a JWT's mapped groups, say). */
  extraPolicies?: string[];
}

export async function issueLoginToken(req: ReqContext, mount: AuthMount, grant: LoginGrant): Promise<Result> {
  const s = grant.settings;
  const now = Math.floor(req.deps.now() / 1000);
  // token_max_ttl limits the lifetime renewals included: kept on the token as its explicit maximum.
  const lifetime = Math.min(...[s.explicitMaxTtl, s.maxTtl, mount.maxLeaseTtl].filter((t) => t > 0));
  const { ttl, warnings } = calculateTtl({
    increment: 0,
    ttl: s.ttl || mount.defaultLeaseTtl,
    period: s.period,
    explicitMaxTtl: lifetime,
    maxTtl: 0,
    start: now,
    now,
  });
  const policies = [...new Set([...(s.noDefaultPolicy ? [] : ['default']), ...s.policies, ...(grant.extraPolicies ?? [])])].sort();
  // A role stored before roles were checked for it may still name root: no login carries it.
  if (policies.some((p) => p.toLowerCase() === 'root')) throw new InvalidInput(NO_ROOT_TOKENS);
  const prefix = mount.path.slice('auth/'.length).replace(/\//g, '-');
  const { token, record } = await req.deps.tokens.create({
    policies,
    display_name: grant.displayName ? `${prefix}-${grant.displayName}`.slice(0, 256) : prefix,
    meta: grant.metadata,
    num_uses: s.numUses,
    ttl,
    explicit_max_ttl: lifetime,
    renewable: true,
    parent: '',
    path: `${mount.path}/login`,
    period: s.period,
    bound_cidrs: s.boundCidrs,
    alias: { mount_accessor: mount.accessor, mount_type: mount.type, name: grant.alias.name, metadata: grant.alias.metadata },
  });
  return { auth: authBlock(token, record), ...(warnings.length ? { warnings } : {}) };
}
