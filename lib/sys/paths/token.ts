/** auth/token/*: create, look up, renew and revoke tokens. */
import { SYSTEM_DEFAULT_LEASE_TTL, SYSTEM_MAX_LEASE_TTL } from '../../config';
import type { Deps } from '../../deps';
import { BadRequest, PermissionDenied } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import type { TokenRecord } from '../tokens';

const iso = (s: number) => new Date(s * 1000).toISOString();

/** The reference server's token lookup shape. `token` is echoed only to its own holder. */
export function tokenData(r: TokenRecord, now: number, token?: string): Record<string, unknown> {
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
    renewable: r.renewable,
    ttl: r.expire_time ? Math.max(0, r.expire_time - Math.floor(now / 1000)) : 0,
    type: 'service',
  };
}

/** The auth block of a create or renew: the lease is what was granted then, not what is left now. */
function authBlock(token: string, r: TokenRecord) {
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
    num_uses: r.num_uses,
  };
}

async function self(req: Req): Promise<{ record: TokenRecord; token: string }> {
  const token = req.token ?? '';
  const found = await req.deps.tokens.lookup(token);
  // A token whose last use authorised this very request is gone already.
  if (!found) throw new PermissionDenied('permission denied: invalid or expired token');
  return { record: found.record, token };
}

async function byToken(deps: Deps, token: string): Promise<TokenRecord> {
  const found = await deps.tokens.lookup(token);
  if (!found) throw new BadRequest('bad token: no such token, or it has expired');
  return found.record;
}

async function byAccessor(deps: Deps, accessor: string): Promise<TokenRecord> {
  const r = await deps.tokens.byAccessor(accessor);
  if (!r) throw new BadRequest('invalid accessor');
  return r;
}

const createFields = {
  policies: f.list({ description: 'policies of the new token; default: those of the caller' }),
  no_default_policy: f.bool({ default: false, description: 'leave out the default policy' }),
  meta: f.map({ description: 'metadata echoed back in lookups' }),
  no_parent: f.bool({ default: false, description: 'an orphan token (root only)' }),
  display_name: f.string({ default: 'token' }),
  num_uses: f.int({ default: 0, min: 0, description: 'uses before it is revoked; 0 is unlimited' }),
  ttl: f.duration({ description: 'time to live; default 768h' }),
  explicit_max_ttl: f.duration({ default: 0, description: 'a hard limit renewals cannot pass' }),
  renewable: f.bool({ default: true }),
};

function childPolicies(parent: string[], requested: string[] | undefined, noDefault: boolean): string[] {
  const isRoot = parent.includes('root');
  const wanted = [...new Set((requested ?? parent.filter((p) => p !== 'default')).map((p) => p.trim().toLowerCase()))];
  if (!isRoot) {
    const outside = wanted.filter((p) => p !== 'default' && !parent.includes(p));
    if (outside.length) throw new BadRequest(`child policies must be a subset of the parent's: not allowed: ${outside.join(', ')}`);
  }
  if (!wanted.includes('root') && !noDefault && !wanted.includes('default')) wanted.push('default');
  return wanted.sort();
}

export const tokenPaths = [
  definePath({
    pattern: 'create',
    fields: createFields,
    help: 'Create a token, a child of the caller unless no_parent is set.',
    operations: {
      write: async (req) => {
        const parent = req.principal!;
        const d = req.data;
        const isRoot = parent.policies.includes('root');
        if (d.no_parent && !isRoot) throw new PermissionDenied('permission denied: only a root token may create an orphan token');
        const policies = childPolicies(parent.policies, d.policies, d.no_default_policy);
        const max = d.explicit_max_ttl || SYSTEM_MAX_LEASE_TTL;
        // As the reference server: no ttl (or 0) means the default, capped by explicit_max_ttl.
        const ttl = Math.min(d.ttl || SYSTEM_DEFAULT_LEASE_TTL, max);
        const { token, record } = await req.deps.tokens.create({
          policies,
          display_name: d.display_name === 'token' ? 'token' : `token-${d.display_name}`.slice(0, 128),
          meta: d.meta ?? {},
          num_uses: d.num_uses,
          ttl,
          explicit_max_ttl: d.explicit_max_ttl,
          renewable: d.renewable,
          parent: d.no_parent ? '' : parent.accessor,
          path: 'auth/token/create',
        });
        return { auth: authBlock(token, record) };
      },
    },
  }),
  definePath({
    pattern: 'lookup-self',
    fields: {},
    help: "Look up the caller's token.",
    operations: {
      read: async (req) => {
        const { record, token } = await self(req);
        return { data: tokenData(record, req.deps.now(), token) };
      },
    },
  }),
  definePath({
    pattern: 'lookup',
    fields: { token: f.string({ required: true }) },
    help: 'Look up a token.',
    operations: {
      write: async (req) => ({ data: tokenData(await byToken(req.deps, req.data.token), req.deps.now(), req.data.token) }),
    },
  }),
  definePath({
    pattern: 'lookup-accessor',
    fields: { accessor: f.string({ required: true }) },
    help: 'Look up a token by its accessor.',
    operations: {
      write: async (req) => ({ data: tokenData(await byAccessor(req.deps, req.data.accessor), req.deps.now()) }),
    },
  }),
  definePath({
    pattern: 'renew-self',
    fields: { increment: f.duration({ description: 'the new time to live, from now' }) },
    help: "Renew the caller's token.",
    operations: {
      write: async (req) => {
        const { record, token } = await self(req);
        const next = await req.deps.tokens.renew(record, req.data.increment);
        return { auth: authBlock(token, next) };
      },
    },
  }),
  definePath({
    pattern: 'renew',
    fields: { token: f.string({ required: true }), increment: f.duration() },
    help: 'Renew a token.',
    operations: {
      write: async (req) => {
        const next = await req.deps.tokens.renew(await byToken(req.deps, req.data.token), req.data.increment);
        return { auth: authBlock(req.data.token, next) };
      },
    },
  }),
  definePath({
    pattern: 'revoke-self',
    fields: {},
    help: "Revoke the caller's token and its children.",
    operations: {
      write: async (req) => {
        const found = await req.deps.tokens.lookup(req.token ?? '');
        if (found) await req.deps.tokens.revoke(found.record);
      },
    },
  }),
  definePath({
    pattern: 'revoke',
    fields: { token: f.string({ required: true }) },
    help: 'Revoke a token and its children.',
    operations: {
      write: async (req) => {
        const found = await req.deps.tokens.lookup(req.data.token);
        if (found) await req.deps.tokens.revoke(found.record);
      },
    },
  }),
  definePath({
    pattern: 'revoke-accessor',
    fields: { accessor: f.string({ required: true }) },
    help: 'Revoke a token by its accessor.',
    operations: {
      write: async (req) => {
        await req.deps.tokens.revoke(await byAccessor(req.deps, req.data.accessor));
      },
    },
  }),
];
