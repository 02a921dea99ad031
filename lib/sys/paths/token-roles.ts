/** auth/token/roles: token roles, written, read, listed and deleted as the reference serves them. */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { applyRoleInput, checkRoleName } from '../token-roles';
import { tokenRoles } from './token-create';
import { roleData } from './token-shapes';

const roleFields = {
  role_name: f.pathParam({ description: 'the role name' }),
  allowed_policies: f.list({ foldCase: true, description: "policies tokens of this role may have; without it, the caller's" }),
  disallowed_policies: f.list({ foldCase: true, description: 'policies tokens of this role may never have' }),
  allowed_policies_glob: f.list({ foldCase: true, description: 'as allowed_policies, with * globs' }),
  disallowed_policies_glob: f.list({ foldCase: true, description: 'as disallowed_policies, with * globs' }),
  orphan: f.bool({ description: 'tokens of this role have no parent' }),
  renewable: f.bool({ description: 'tokens of this role may be renewed (default true)' }),
  path_suffix: f.string({ description: 'appended to the token path auth/token/create/<role>/' }),
  token_period: f.duration({ description: 'tokens of this role are periodic with this period' }),
  period: f.duration({ aliasOf: 'token_period', description: 'deprecated: use token_period' }),
  token_explicit_max_ttl: f.duration({ description: 'a hard limit on the life of tokens of this role' }),
  explicit_max_ttl: f.duration({ aliasOf: 'token_explicit_max_ttl', description: 'deprecated: use token_explicit_max_ttl' }),
  token_ttl: f.duration({ description: 'default TTL of tokens of this role' }),
  token_max_ttl: f.duration({ description: 'maximum life of tokens of this role, renewals included' }),
  token_type: f.string({ description: '"service" or "default-service" (batch tokens are not served)' }),
  token_no_default_policy: f.bool({ description: 'leave the default policy out' }),
  token_num_uses: f.int({ min: 0, description: 'uses of each token; 0 is unlimited' }),
  token_bound_cidrs: f.list({ description: 'not supported: refused when set' }),
  bound_cidrs: f.list({ description: 'not supported: refused when set' }),
  allowed_entity_aliases: f.list({ description: 'not supported: refused when set' }),
};

const UNSUPPORTED = ['token_bound_cidrs', 'bound_cidrs', 'allowed_entity_aliases'] as const;

export const rolePaths = [
  definePath({
    pattern: 'roles',
    fields: {},
    help: 'List the token roles.',
    operations: {
      list: async (req) => {
        const keys = await tokenRoles(req.deps).list();
        if (!keys.length) throw new NotFound();
        return { data: { keys } };
      },
    },
  }),
  definePath({
    pattern: 'roles/:role_name',
    fields: roleFields,
    help: 'A token role: settings that tokens created against auth/token/create/<role> get.',
    exists: async ({ params, deps }) => (await tokenRoles(deps).get(params.role_name ?? '')) !== undefined,
    operations: {
      read: async (req) => {
        const role = await tokenRoles(req.deps).get(req.data.role_name);
        if (!role) throw new NotFound();
        return { data: roleData(role) };
      },
      write: async (req) => {
        const d = req.data;
        const refused = UNSUPPORTED.filter((k) => d[k]?.length);
        if (refused.length) throw new BadRequest(`not supported, refused rather than ignored: ${refused.join(', ')}`);
        const roles = tokenRoles(req.deps);
        const name = checkRoleName(d.role_name);
        const { role, warnings } = applyRoleInput(name, await roles.get(name), {
          allowedPolicies: d.allowed_policies,
          disallowedPolicies: d.disallowed_policies,
          allowedPoliciesGlob: d.allowed_policies_glob,
          disallowedPoliciesGlob: d.disallowed_policies_glob,
          orphan: d.orphan,
          renewable: d.renewable,
          pathSuffix: d.path_suffix,
          period: d.period,
          tokenPeriod: d.token_period,
          explicitMaxTtl: d.explicit_max_ttl,
          tokenExplicitMaxTtl: d.token_explicit_max_ttl,
          tokenTtl: d.token_ttl,
          tokenMaxTtl: d.token_max_ttl,
          tokenType: d.token_type,
          tokenNoDefaultPolicy: d.token_no_default_policy,
          tokenNumUses: d.token_num_uses,
        });
        await roles.put(role);
        return warnings.length ? { warnings } : undefined;
      },
      delete: async (req) => {
        await tokenRoles(req.deps).delete(req.data.role_name);
      },
    },
  }),
];
