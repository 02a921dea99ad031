/** auth/token/create, create-orphan and create/<role>: wire <-> planToken (lib/sys/token-create.ts). */
import type { Deps } from '../../deps';
import { BadRequest, PermissionDenied } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req, type Result } from '../../http/path';
import { planToken, type Caller } from '../token-create';
import { authorizedRecord, boundCidrsOf } from '../token-principal';
import { ancestorsOfChild } from '../token-record';
import { TokenRoles, type TokenRole } from '../token-roles';
import { authBlock } from './token-shapes';

export const tokenRoles = (deps: Deps) => new TokenRoles(deps.store.partition('sys'));

/** Root, or the sudo capability on `path` (relative to /v1/) by the caller's policies. */
export async function hasSudo(deps: Deps, policies: string[], path: string): Promise<boolean> {
  if (policies.includes('root')) return true;
  const caps = (await deps.policies.rules(policies)).permissions(path, false)?.capabilities;
  return caps !== undefined && caps.has('sudo') && !caps.has('deny');
}

const createFields = {
  policies: f.list({ foldCase: true, description: "policies of the new token; default: the caller's" }),
  no_default_policy: f.bool({ default: false, description: 'leave out the default policy' }),
  meta: f.map({ description: 'metadata echoed back in lookups' }),
  no_parent: f.bool({ default: false, description: 'an orphan token (root or sudo on this path)' }),
  display_name: f.string({ default: '', description: 'shown as token-<display_name>' }),
  num_uses: f.int({ default: 0, min: 0, description: 'uses before it is revoked; 0 is unlimited' }),
  ttl: f.duration({ description: 'time to live; default 768h' }),
  lease: f.duration({ aliasOf: 'ttl', description: 'deprecated: use ttl' }),
  explicit_max_ttl: f.duration({ description: 'a hard limit renewals cannot pass' }),
  period: f.duration({ description: 'a periodic token: every renewal grants this, with no limit but explicit_max_ttl (root or sudo)' }),
  renewable: f.bool({ default: true }),
  type: f.string({ description: 'token type: only "service" is served' }),
  id: f.string({ description: 'not supported: token values are always generated' }),
  entity_alias: f.string({ description: 'not supported' }),
};

async function callerOf(req: Req): Promise<Caller> {
  const principal = req.principal!;
  const record = await authorizedRecord(req);
  // A token whose last use authorised this very request is gone already.
  if (!record) throw new PermissionDenied('permission denied: invalid or expired token');
  return {
    accessor: principal.accessor,
    policies: principal.policies,
    expireTime: record.expire_time,
    numUses: record.num_uses,
    boundCidrs: boundCidrsOf(record),
    childAncestors: ancestorsOfChild(record),
    sudo: await hasSudo(req.deps, principal.policies, `auth/token/${req.path.replace(/\/+$/, '')}`),
  };
}

/** Warnings for policies that do not exist (yet), as the reference server gives them. */
async function missingPolicies(deps: Deps, policies: string[]): Promise<string[]> {
  const named = policies.filter((p) => p !== 'root' && p !== 'default');
  const texts = await Promise.all(named.map((p) => deps.policies.read(p)));
  return named.filter((_, i) => texts[i] === undefined).map((p) => `Policy "${p}" does not exist`);
}

async function create(req: Req<typeof createFields>, path: string, orphan: boolean, role?: TokenRole): Promise<Result> {
  const d = req.data;
  const caller = await callerOf(req);
  const { input, warnings } = planToken(
    {
      policies: d.policies,
      noDefaultPolicy: d.no_default_policy,
      meta: d.meta,
      noParent: d.no_parent,
      displayName: d.display_name,
      numUses: d.num_uses,
      ttl: d.ttl || d.lease,
      explicitMaxTtl: d.explicit_max_ttl,
      period: d.period,
      renewable: d.renewable,
      type: d.type,
      id: d.id,
      entityAlias: d.entity_alias,
    },
    caller,
    { path, orphan, role, now: Math.floor(req.deps.now() / 1000) },
  );
  // Only a root caller makes a root token (planToken refuses it otherwise; the store checks again).
  const { token, record } = await req.deps.tokens.create(caller.policies.includes('root') ? { ...input, allowRoot: true } : input);
  warnings.push(...(await missingPolicies(req.deps, record.policies)));
  return { auth: authBlock(token, record), ...(warnings.length ? { warnings } : {}) };
}

export const createPaths = [
  definePath({
    pattern: 'create',
    fields: createFields,
    help: 'Create a token, a child of the caller unless no_parent is set (root or sudo).',
    operations: { write: (req) => create(req, 'create', false) },
  }),
  definePath({
    pattern: 'create-orphan',
    fields: createFields,
    help: 'Create a token with no parent: revoking the caller leaves it alive.',
    operations: { write: (req) => create(req, 'create-orphan', true) },
  }),
  definePath({
    pattern: 'create/:role_name',
    fields: { ...createFields, role_name: f.pathParam({ description: 'the token role' }) },
    help: "Create a token against a token role: the role's settings override the request's.",
    operations: {
      write: async (req) => {
        const role = await tokenRoles(req.deps).get(req.data.role_name);
        if (!role) throw new BadRequest(`unknown role ${req.data.role_name}`);
        return create(req, `create/${role.name}`, false, role);
      },
    },
  }),
];
