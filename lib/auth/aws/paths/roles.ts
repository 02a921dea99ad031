/** auth/aws/role/<role> (write, read, delete) and the role list (role, roles). */
import { BadRequest, NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath } from '../../../http/path';
import { roleListPath } from '../../role-list';
import { mergeTokenSettings, tokenFields, tokenSettingsData } from '../../token-fields';
import { applyRoleInput, roleName, roleView, UNSUPPORTED_ROLE_FIELDS } from '../role';
import { AwsAuthStore } from '../store';

const refused = Object.fromEntries(
  UNSUPPORTED_ROLE_FIELDS.map((k) => [k, f.any({ description: 'EC2 authentication only: refused when set' })]),
);

const roleFields = {
  role: f.pathParam({ foldCase: true, description: 'the role name (case-insensitive: stored lower-cased)' }),
  auth_type: f.string({ description: 'iam (the only type served; ec2 is refused)' }),
  bound_iam_principal_arn: f.list({ description: 'IAM user or role ARNs that may log in with this role; * is a wildcard' }),
  resolve_aws_unique_ids: f.bool({ description: 'must be false: unique ids would need IAM calls' }),
  ttl: f.duration({ aliasOf: 'token_ttl', description: 'deprecated: use token_ttl' }),
  max_ttl: f.duration({ aliasOf: 'token_max_ttl', description: 'deprecated: use token_max_ttl' }),
  period: f.duration({ aliasOf: 'token_period', description: 'deprecated: use token_period' }),
  ...tokenFields,
  ...refused,
};

const list = roleListPath('roles', (req) => new AwsAuthStore(req.part).roleNames(), { alsoRead: true });

export const rolePaths = [
  list,
  { ...list, pattern: 'role' },
  definePath({
    pattern: 'role/:role',
    fields: roleFields,
    help: 'An iam role: the IAM principals that may log in with it and the tokens they get.',
    exists: async ({ params, part }) => {
      try {
        return (await new AwsAuthStore(part).role(roleName(params.role ?? ''))) !== undefined;
      } catch {
        return false;
      }
    },
    operations: {
      write: async (req) => {
        const d = req.data;
        const given = UNSUPPORTED_ROLE_FIELDS.filter((k) => (d as Record<string, unknown>)[k] !== undefined);
        if (given.length)
          throw new BadRequest(
            `not supported, refused rather than stored and ignored: ${given.join(', ')} (only iam roles bound by bound_iam_principal_arn)`,
          );
        const store = new AwsAuthStore(req.part);
        const name = roleName(d.role);
        const current = await store.role(name);
        const settings = mergeTokenSettings(current?.settings, {
          ...d,
          token_ttl: d.token_ttl ?? d.ttl,
          token_max_ttl: d.token_max_ttl ?? d.max_ttl,
          token_period: d.token_period ?? d.period,
        });
        const role = applyRoleInput(
          current,
          { authType: d.auth_type, boundIamPrincipalArn: d.bound_iam_principal_arn, resolveAwsUniqueIds: d.resolve_aws_unique_ids },
          settings,
        );
        await store.putRole(name, role);
      },
      read: async (req) => {
        const role = await new AwsAuthStore(req.part).role(roleName(req.data.role));
        if (!role) throw new NotFound();
        return { data: { ...roleView(role), ...tokenSettingsData(role.settings), ttl: role.settings.ttl, max_ttl: role.settings.maxTtl } };
      },
      delete: async (req) => {
        await new AwsAuthStore(req.part).deleteRole(roleName(req.data.role));
      },
    },
  }),
];
