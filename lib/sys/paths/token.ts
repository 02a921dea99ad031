/** auth/token/*: look up, renew and revoke tokens; creation and roles live beside this file. */
import type { Deps } from '../../deps';
import { BadRequest, PermissionDenied } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import type { RenewLimits, TokenRecord } from '../tokens';
import { createPaths, hasSudo, tokenRoles } from './token-create';
import { rolePaths } from './token-roles';
import { authBlock, tokenData } from './token-shapes';
import { authorizedRecord } from '../token-principal';

/** The shape of every token Latchkey issues; anything else was never a token here. */
const WELL_FORMED = /^lk\.[A-Za-z0-9_-]{43}$/;

async function self(req: Req): Promise<{ record: TokenRecord; token: string }> {
  const token = req.token ?? '';
  const record = await authorizedRecord(req);
  if (record) return { record, token };
  // A token whose last use authorised this very request is gone already: answer from what it was.
  const was = req.principal?.snapshot as TokenRecord | undefined;
  if (!was || was.accessor !== req.principal?.accessor) throw new PermissionDenied('permission denied: invalid or expired token');
  return { record: was, token };
}

/**
 * A token named in the body. As the reference server: a malformed one is a 403 "bad token"
 * everywhere; a well-formed one that is not (or no longer) live gets `missing`'s answer.
 */
async function named(deps: Deps, token: string, missing: () => never): Promise<TokenRecord> {
  if (!WELL_FORMED.test(token)) throw new PermissionDenied('bad token');
  const found = await deps.tokens.lookup(token);
  return found ? found.record : missing();
}

const badToken = (): never => {
  throw new PermissionDenied('bad token');
};

async function byAccessor(deps: Deps, accessor: string): Promise<TokenRecord> {
  const r = await deps.tokens.byAccessor(accessor);
  if (!r) throw new BadRequest('invalid accessor');
  return r;
}

/** A role's current period and limits apply to renewals of its tokens, as the reference does. */
async function renewLimits(deps: Deps, r: TokenRecord): Promise<RenewLimits> {
  if (!r.role) return {};
  const role = await tokenRoles(deps).get(r.role);
  if (!role) throw new BadRequest(`original token role "${r.role}" could not be found, not renewing`);
  const explicit = [r.explicit_max_ttl, role.tokenExplicitMaxTtl].filter((t) => t > 0);
  return { period: role.tokenPeriod, explicitMaxTtl: explicit.length ? Math.min(...explicit) : 0, maxTtl: role.tokenMaxTtl };
}

async function renew(deps: Deps, record: TokenRecord, token: string, increment: number | undefined) {
  const next = await deps.tokens.renew(record, increment, await renewLimits(deps, record));
  return { auth: authBlock(token, next) };
}

const lookup = async (req: Req<{ token: ReturnType<typeof f.string> }>) => {
  const token = req.data.token || req.token || '';
  return { data: tokenData(await named(req.deps, token, badToken), req.deps.now(), token) };
};

/**
 * A token named in a revoke call's body, live or not: calling again resumes a revocation a crash
 * interrupted. A malformed one is a 403 "bad token", as everywhere.
 */
async function storedRecord(deps: Deps, token: string): Promise<TokenRecord | undefined> {
  if (!WELL_FORMED.test(token)) throw new PermissionDenied('bad token');
  return (await deps.tokens.recordOf(token))?.record;
}

const otherPaths = [
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
    fields: { token: f.string({ description: "the token to look up; default: the caller's" }) },
    help: 'Look up a token.',
    operations: { write: lookup, read: lookup },
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
        return renew(req.deps, record, token, req.data.increment);
      },
    },
  }),
  definePath({
    pattern: 'renew',
    fields: { token: f.string({ required: true }), increment: f.duration() },
    help: 'Renew a token.',
    operations: {
      write: async (req) => {
        const record = await named(req.deps, req.data.token, () => {
          throw new BadRequest('token not found');
        });
        return renew(req.deps, record, req.data.token, req.data.increment);
      },
    },
  }),
  definePath({
    pattern: 'renew-accessor',
    fields: { accessor: f.string({ required: true }), increment: f.duration() },
    help: 'Renew a token by its accessor (the answer does not carry the token).',
    operations: {
      write: async (req) => renew(req.deps, await byAccessor(req.deps, req.data.accessor), '', req.data.increment),
    },
  }),
  definePath({
    pattern: 'revoke-self',
    fields: {},
    help: "Revoke the caller's token and its children.",
    operations: {
      write: async (req) => {
        const record = await authorizedRecord(req);
        if (record) await req.deps.tokens.revoke(record);
      },
    },
  }),
  definePath({
    pattern: 'revoke',
    fields: { token: f.string({ required: true }) },
    help: 'Revoke a token and its children.',
    operations: {
      write: async (req) => {
        const record = await storedRecord(req.deps, req.data.token);
        if (record) await req.deps.tokens.revoke(record);
      },
    },
  }),
  definePath({
    pattern: 'revoke-orphan',
    fields: { token: f.string({ required: true }) },
    help: 'Revoke a token and leave its children alive, as orphans (sudo).',
    operations: {
      write: async (req) => {
        // As the reference: update on the path lets the call in, the handler asks for sudo (400 without).
        const sudo = await hasSudo(req.deps, req.principal!.policies, 'auth/token/revoke-orphan');
        if (!sudo) throw new BadRequest('root or sudo privileges required to revoke and orphan');
        const record = await storedRecord(req.deps, req.data.token);
        if (!record) throw new BadRequest('token to revoke not found');
        await req.deps.tokens.revoke(record, { orphanChildren: true });
      },
    },
  }),
  definePath({
    pattern: 'revoke-accessor',
    fields: { accessor: f.string({ required: true }) },
    help: 'Revoke a token and its children by the token accessor.',
    operations: {
      write: async (req) => {
        await req.deps.tokens.revoke(await byAccessor(req.deps, req.data.accessor));
      },
    },
  }),
];

export const tokenPaths = [...createPaths, ...rolePaths, ...otherPaths];
