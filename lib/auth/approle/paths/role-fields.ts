/**
 * The reference's per-field sub-paths of a role (`role/<name>/policies`, `token-ttl`, …): read
 * one field, write it (as a write of that field on `role/<name>`), delete it back to its default.
 */
import { BadRequest, NotFound } from '../../../errors';
import { definePath } from '../../../http/path';
import { checkRoleName } from '../ids';
import { roleData } from '../role';
import { approleStore } from './role-access';
import { roleFields, writeRole, type RoleWrite } from './roles';

type FieldName = keyof typeof roleFields;

/** sub-path → the fields it reads and writes (the first is written), and its default. */
const SUB_PATHS: Record<string, { fields: FieldName[]; reset: unknown; readOnly?: boolean }> = {
  policies: { fields: ['token_policies', 'policies'], reset: [] },
  'secret-id-bound-cidrs': { fields: ['secret_id_bound_cidrs'], reset: [] },
  'bound-cidr-list': { fields: ['bound_cidr_list'], reset: [] },
  'token-bound-cidrs': { fields: ['token_bound_cidrs'], reset: [] },
  'bind-secret-id': { fields: ['bind_secret_id'], reset: true },
  'secret-id-num-uses': { fields: ['secret_id_num_uses'], reset: 0 },
  'secret-id-ttl': { fields: ['secret_id_ttl'], reset: 0 },
  period: { fields: ['token_period', 'period'], reset: 0 },
  'token-num-uses': { fields: ['token_num_uses'], reset: 0 },
  'token-ttl': { fields: ['token_ttl'], reset: 0 },
  'token-max-ttl': { fields: ['token_max_ttl'], reset: 0 },
  'local-secret-ids': { fields: ['local_secret_ids'], reset: false, readOnly: true },
};

/** The path parameter (always a string: the route matched it). */
const nameOf = (d: { role_name?: unknown }) => String(d.role_name ?? '');

/** The role's data under a field name (bound_cidr_list reads secret_id_bound_cidrs). */
const readName = (f: FieldName) => (f === 'bound_cidr_list' ? 'secret_id_bound_cidrs' : f);

export const roleFieldPaths = Object.entries(SUB_PATHS).map(([sub, spec]) => {
  const first = spec.fields[0]!;
  // The value was checked against this very field's schema by the edge: it is the field's type.
  const write = (req: Parameters<typeof writeRole>[0], name: string, value: unknown) =>
    writeRole(req, { role_name: name, [first]: value } as RoleWrite, true);
  return definePath({
    pattern: `role/:role_name/${sub}`,
    fields: { role_name: roleFields.role_name, ...(spec.readOnly ? {} : Object.fromEntries(spec.fields.map((f) => [f, roleFields[f]]))) },
    help: `The role's ${spec.fields.join(' / ')}: read, set, or reset to the default.`,
    operations: {
      read: async (req) => {
        const item = await approleStore(req).role(checkRoleName(nameOf(req.data)));
        if (!item) throw new NotFound();
        const data = roleData(item.value);
        return { data: Object.fromEntries(spec.fields.map((f) => [f, data[readName(f)]])) };
      },
      ...(spec.readOnly
        ? {}
        : {
            write: async (req) => {
              const given = spec.fields.map((f) => (req.data as Record<string, unknown>)[f]).find((v) => v !== undefined);
              if (given === undefined) throw new BadRequest(`missing ${first}`);
              await write(req, nameOf(req.data), given);
            },
            delete: async (req) => {
              await write(req, nameOf(req.data), spec.reset);
            },
          }),
    },
  });
});
