/**
 * role/<name>/secret-id (generate, LIST accessors), custom-secret-id, secret-id/lookup|destroy,
 * secret-id-accessor/lookup|destroy, and tidy/secret-id.
 */
import { BadRequest, NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath, type Req, type Result } from '../../../http/path';
import { parseMetadata } from '../ids';
import {
  destroyByAccessor,
  destroySecretId,
  issueSecretId,
  listAccessors,
  lookupByAccessor,
  lookupSecretId,
  secretIdData,
  tidySecretIds,
} from '../secret-ids';
import { approleStore, requireAppRole } from './role-access';

const roleName = f.pathParam({ foldCase: true, description: 'the role name (case-insensitive: stored lower-cased)' });

const issueFields = {
  role_name: roleName,
  metadata: f.any({ description: 'a JSON object of strings (as a string), kept with the secret id and copied into the token metadata' }),
  cidr_list: f.list({
    compareAs: 'address',
    description: "CIDR blocks logins with this secret id may come from (within the role's secret_id_bound_cidrs)",
  }),
  token_bound_cidrs: f.list({
    compareAs: 'address',
    description: "CIDR blocks the tokens may be used from (within the role's token_bound_cidrs)",
  }),
  ttl: f.duration({ description: "lifetime of the secret id (at most the role's secret_id_ttl)" }),
  num_uses: f.int({ min: 0, description: "uses of the secret id (at most the role's secret_id_num_uses)" }),
};

async function issue(req: Req<typeof issueFields>, secretId: string | undefined): Promise<Result> {
  const d = req.data;
  const { store, role } = await requireAppRole(req, d.role_name);
  const issued = await issueSecretId(
    store,
    role,
    { metadata: parseMetadata(d.metadata), cidrList: d.cidr_list, tokenBoundCidrs: d.token_bound_cidrs, ttl: d.ttl, numUses: d.num_uses },
    { secretId, now: req.deps.now(), maxTtl: req.mount.maxLeaseTtl },
  );
  return {
    data: {
      secret_id: issued.secretId,
      secret_id_accessor: issued.accessor,
      secret_id_ttl: issued.ttl,
      secret_id_num_uses: issued.numUses,
    },
  };
}

const bySecretId = { role_name: roleName, secret_id: f.string({ description: 'the secret id' }) };
const byAccessor = { role_name: roleName, secret_id_accessor: f.string({ description: "the secret id's accessor" }) };

const need = (v: string | undefined, field: string): string => {
  if (!v) throw new BadRequest(`missing ${field}`);
  return v;
};

export const secretIdPaths = [
  definePath({
    pattern: 'role/:role_name/secret-id',
    fields: issueFields,
    help: 'Generate a secret id for the role (answered once: only its HMAC is kept), or list the accessors of its secret ids.',
    operations: {
      write: (req) => issue(req, undefined),
      list: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        const keys = await listAccessors(store, role, req.deps.now());
        if (!keys.length) throw new NotFound();
        return { data: { keys } };
      },
    },
  }),
  definePath({
    pattern: 'role/:role_name/custom-secret-id',
    fields: { ...issueFields, secret_id: f.string({ description: 'the secret id to register' }) },
    help: 'Register a secret id of your choice for the role.',
    operations: {
      write: (req) => issue(req, need(req.data.secret_id, 'secret_id')),
    },
  }),
  definePath({
    pattern: 'role/:role_name/secret-id/lookup',
    fields: bySecretId,
    help: "A secret id's properties (204 when it is not one of the role's live secret ids).",
    operations: {
      write: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        const found = await lookupSecretId(store, role, need(req.data.secret_id, 'secret_id'), req.deps.now());
        return found ? { data: secretIdData(found) } : undefined;
      },
    },
  }),
  definePath({
    pattern: 'role/:role_name/secret-id/destroy',
    fields: bySecretId,
    help: 'Destroy a secret id.',
    operations: {
      write: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        await destroySecretId(store, role, need(req.data.secret_id, 'secret_id'));
      },
      delete: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        await destroySecretId(store, role, need(req.data.secret_id, 'secret_id'));
      },
    },
  }),
  definePath({
    pattern: 'role/:role_name/secret-id-accessor/lookup',
    fields: byAccessor,
    help: "A secret id's properties, by its accessor.",
    operations: {
      write: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        const found = await lookupByAccessor(store, role, need(req.data.secret_id_accessor, 'secret_id_accessor'), req.deps.now());
        return found ? { data: secretIdData(found) } : undefined;
      },
    },
  }),
  definePath({
    pattern: 'role/:role_name/secret-id-accessor/destroy',
    fields: byAccessor,
    help: 'Destroy a secret id, by its accessor.',
    operations: {
      write: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        await destroyByAccessor(store, role, need(req.data.secret_id_accessor, 'secret_id_accessor'));
      },
      delete: async (req) => {
        const { store, role } = await requireAppRole(req, req.data.role_name);
        await destroyByAccessor(store, role, need(req.data.secret_id_accessor, 'secret_id_accessor'));
      },
    },
  }),
  definePath({
    pattern: 'tidy/secret-id',
    fields: {},
    help: 'Remove the expired secret ids (and their accessors).',
    operations: {
      write: async (req) => {
        const removed = await tidySecretIds(approleStore(req), req.deps.now());
        return { status: 202, warnings: [`Tidy operation finished: ${removed} expired secret IDs removed.`] };
      },
    },
  }),
];
