/**
 * An aws auth role (auth_type iam): the principals it binds and the token settings its logins
 * get. EC2 authentication and unique-id resolution need IAM and EC2 calls this service does not
 * make, so their settings are refused rather than stored and ignored.
 */
import { authRoleName } from '../role-name';
import { randomUUID } from 'node:crypto';
import { InvalidInput } from '../../domain-errors';
import type { TokenSettings } from '../token-fields';
import { checkBinding } from './arn';

export type AwsRole = {
  authType: 'iam';
  /** the reference's role_id: a UUID made at creation, recorded in the tokens' metadata */
  roleId: string;
  boundIamPrincipalArns: string[];
  settings: TokenSettings;
};

export interface RoleInput {
  authType?: string | undefined;
  boundIamPrincipalArn?: string[] | undefined;
  resolveAwsUniqueIds?: boolean | undefined;
}

/** The reference's settings that only EC2 authentication or IAM lookups give a meaning to. */
export const UNSUPPORTED_ROLE_FIELDS = [
  'bound_ami_id',
  'bound_account_id',
  'bound_region',
  'bound_vpc_id',
  'bound_subnet_id',
  'bound_iam_role_arn',
  'bound_iam_instance_profile_arn',
  'bound_ec2_instance_id',
  'role_tag',
  'inferred_entity_type',
  'inferred_aws_region',
  'allow_instance_migration',
  'disallow_reauthentication',
] as const;

/** Role names as the reference keeps them: lower-cased; IAM's own name characters. */
/** A role name in a path: the auth methods' one rule (lib/auth/role-name.ts). */
export const roleName = authRoleName;

/** The role after a write: the given fields over the current role (or a new one). */
export function applyRoleInput(current: AwsRole | undefined, input: RoleInput, settings: TokenSettings): AwsRole {
  if (input.authType !== undefined && input.authType !== 'iam') {
    throw new InvalidInput(
      `auth_type "${input.authType.slice(0, 16)}" is not supported: only iam (EC2 instance identity documents are not verified by this service)`,
    );
  }
  if (input.resolveAwsUniqueIds === true) {
    throw new InvalidInput(
      'resolve_aws_unique_ids must be false: resolving principals to their unique ids needs IAM calls this service does not make',
    );
  }
  const bindings = input.boundIamPrincipalArn?.map(checkBinding).filter(Boolean) ?? current?.boundIamPrincipalArns ?? [];
  if (bindings.length === 0) throw new InvalidInput('at least one bound_iam_principal_arn is required for an iam role');
  return { authType: 'iam', roleId: current?.roleId ?? randomUUID(), boundIamPrincipalArns: [...new Set(bindings)], settings };
}

/** The role's fields as the reference reads them back (the EC2 ones empty). */
export function roleView(role: AwsRole): Record<string, unknown> {
  return {
    auth_type: role.authType,
    bound_iam_principal_arn: role.boundIamPrincipalArns,
    bound_iam_principal_id: [],
    resolve_aws_unique_ids: false,
    role_id: role.roleId,
    bound_ami_id: [],
    bound_account_id: [],
    bound_region: [],
    bound_vpc_id: [],
    bound_subnet_id: [],
    bound_iam_role_arn: [],
    bound_iam_instance_profile_arn: [],
    bound_ec2_instance_id: [],
    role_tag: '',
    inferred_entity_type: '',
    inferred_aws_region: '',
    allow_instance_migration: false,
    disallow_reauthentication: false,
  };
}
