import { loginRoleName } from '../../../lib/auth/role-name';
import { describe, expect, it } from 'vitest';
import { applyRoleInput, roleName, roleView } from '../../../lib/auth/aws/role';
import { NO_TOKEN_SETTINGS } from '../../../lib/auth/token-fields';

const ARN = 'arn:aws:iam::123456789012:role/app';

describe('applyRoleInput', () => {
  it('makes an iam role with a role id, kept across updates', () => {
    const role = applyRoleInput(undefined, { boundIamPrincipalArn: [ARN, ARN] }, NO_TOKEN_SETTINGS);
    expect(role).toMatchObject({ authType: 'iam', boundIamPrincipalArns: [ARN] });
    const updated = applyRoleInput(role, { authType: 'iam' }, NO_TOKEN_SETTINGS);
    expect(updated.roleId).toBe(role.roleId);
    expect(updated.boundIamPrincipalArns).toEqual([ARN]);
  });

  it('refuses ec2, unique-id resolution and a role without a binding', () => {
    expect(() => applyRoleInput(undefined, { authType: 'ec2', boundIamPrincipalArn: [ARN] }, NO_TOKEN_SETTINGS)).toThrow(/only iam/);
    expect(() => applyRoleInput(undefined, { resolveAwsUniqueIds: true, boundIamPrincipalArn: [ARN] }, NO_TOKEN_SETTINGS)).toThrow(
      /must be false/,
    );
    expect(() => applyRoleInput(undefined, {}, NO_TOKEN_SETTINGS)).toThrow(/at least one/);
    expect(() => applyRoleInput(undefined, { boundIamPrincipalArn: [] }, NO_TOKEN_SETTINGS)).toThrow(/at least one/);
    expect(applyRoleInput(undefined, { resolveAwsUniqueIds: false, boundIamPrincipalArn: [ARN] }, NO_TOKEN_SETTINGS).authType).toBe('iam');
  });
});

describe('roleName', () => {
  it("folds a name to lower case (as Vault stores AWS role names), in a path as in a login body, and takes IAM's name characters only", () => {
    expect(roleName('app.server@prod')).toBe('app.server@prod');
    expect(roleName('App.Server@Prod')).toBe('app.server@prod');
    expect(loginRoleName('App.Server@Prod')).toBe('app.server@prod');
    for (const bad of ['', 'a/b', 'a b', 'x'.repeat(129)]) expect(() => roleName(bad), bad).toThrow();
  });
});

describe('roleView', () => {
  it("reads back the reference's fields, the EC2 ones empty", () => {
    const view = roleView(applyRoleInput(undefined, { boundIamPrincipalArn: [ARN] }, NO_TOKEN_SETTINGS));
    expect(view).toMatchObject({
      auth_type: 'iam',
      bound_iam_principal_arn: [ARN],
      resolve_aws_unique_ids: false,
      bound_ami_id: [],
      inferred_entity_type: '',
    });
  });
});
