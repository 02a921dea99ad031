/**
 * An iam login: the signed GetCallerIdentity request checked, sent to the mount's own STS
 * endpoint, the caller's ARN read back and held against the role's bindings. Returns what the
 * token records; nothing of the signed request is kept.
 */
import { InvalidInput } from '../../domain-errors';
import type { LoginGrant } from '../login';
import { bindingMatches, canonicalArn, parseIamArn } from './arn';
import { checkLoginRequest, type LoginRequestInput } from './login-request';
import { loginRoleName } from '../role-name';
import type { AwsRole } from './role';
import type { AwsAuthStore, ClientConfig } from './store';
import { callerIdentity } from './sts-call';

export interface IamLoginInput extends LoginRequestInput {
  /** the role to log in with; the caller's user or role name when empty (as the reference) */
  role: string;
}

async function loadRole(store: AwsAuthStore, raw: string): Promise<{ name: string; role: AwsRole }> {
  const name = loginRoleName(raw);
  const role = await store.role(name);
  if (!role) throw new InvalidInput(`entry for role ${name} not found`);
  return { name, role };
}

export async function iamLogin(store: AwsAuthStore, config: ClientConfig, input: IamLoginInput): Promise<LoginGrant> {
  const request = checkLoginRequest(input, { stsRegion: config.stsRegion, serverIdHeaderValue: config.iamServerIdHeaderValue });
  // STS first, as the reference: a caller whose signature STS refuses learns nothing of the roles.
  const caller = await callerIdentity(config.stsEndpoint, request);
  const entity = parseIamArn(caller.arn);
  const { name, role } = await loadRole(store, input.role || entity.friendlyName);
  if (role.authType !== 'iam') throw new InvalidInput(`auth method iam not allowed for role ${name}`);
  if (!bindingMatches(role.boundIamPrincipalArns, entity))
    throw new InvalidInput(`IAM Principal "${caller.arn}" does not belong to the role "${name}"`);

  const canonical = canonicalArn(entity);
  // A user's id, or an assumed role's role id without the session ("AROA…:session").
  const clientUserId = caller.userId.split(':')[0] ?? '';
  return {
    settings: role.settings,
    displayName: entity.friendlyName,
    metadata: {
      client_arn: caller.arn,
      canonical_arn: canonical,
      client_user_id: clientUserId,
      auth_type: 'iam',
      inferred_entity_type: '',
      inferred_entity_id: '',
      inferred_aws_region: '',
      account_id: entity.account,
      role_id: role.roleId,
    },
    alias: {
      name: canonical,
      metadata: {
        account_id: entity.account,
        auth_type: 'iam',
        canonical_arn: canonical,
        client_arn: caller.arn,
        client_user_id: clientUserId,
      },
    },
  };
}
