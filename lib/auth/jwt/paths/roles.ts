/** auth/<jwt>/role/<name> (write, read, delete) and role (list). */
import { BadRequest, NotFound } from '../../../errors';
import { f } from '../../../http/fields';
import { definePath } from '../../../http/path';
import { roleListPath } from '../../role-list';
import { tokenFields, tokenSettingsData } from '../../token-fields';
import { JwtStore } from '../jwt-store';
import { buildRole, checkRoleName, roleView } from '../role';

const oidcOnly = 'for oidc roles, which are not supported: refused when set';

export const roleFields = {
  name: f.pathParam({ description: 'the role name (lower-cased)' }),
  role_type: f.string({ description: 'jwt (oidc is not supported)' }),
  bound_audiences: f.list({ description: 'aud values accepted; any one matches. A token with an aud is refused by a role with none' }),
  bound_subject: f.string({ description: 'the sub claim a token must carry' }),
  bound_claims_type: f.string({ description: 'string (exact values) or glob (* wildcards)' }),
  bound_claims: f.any({ description: 'claims (names or JSON pointers) and the value, or list of values, each must match' }),
  claim_mappings: f.map({ description: 'claims (names or JSON pointers) copied to metadata keys' }),
  user_claim: f.string({ description: 'the claim (or JSON pointer) naming the user: alias and display name (required)' }),
  user_claim_json_pointer: f.bool({ description: 'read user_claim as a JSON pointer' }),
  groups_claim: f.string({ description: 'a claim the token must carry as a list of strings (groups grant no policies in Latchkey)' }),
  clock_skew_leeway: f.any({ description: 'seconds of clock skew allowed on exp, nbf and iat (default 60; -1 none)' }),
  expiration_leeway: f.any({ description: 'seconds added to iat/nbf when a token has no exp (default 150; -1 none)' }),
  not_before_leeway: f.any({ description: 'seconds subtracted from exp when a token has neither nbf nor iat (default 150; -1 none)' }),
  oidc_scopes: f.list({ description: oidcOnly }),
  allowed_redirect_uris: f.list({ description: oidcOnly }),
  verbose_oidc_logging: f.bool({ description: oidcOnly }),
  max_age: f.duration({ description: oidcOnly }),
  ...tokenFields,
  ttl: f.duration({ aliasOf: 'token_ttl', description: 'deprecated alias of token_ttl' }),
  max_ttl: f.duration({ aliasOf: 'token_max_ttl', description: 'deprecated alias of token_max_ttl' }),
  period: f.duration({ aliasOf: 'token_period', description: 'deprecated alias of token_period' }),
  num_uses: f.int({ aliasOf: 'token_num_uses', min: 0, description: 'deprecated alias of token_num_uses' }),
  bound_cidrs: f.list({ compareAs: 'address', aliasOf: 'token_bound_cidrs', description: 'deprecated alias of token_bound_cidrs' }),
};

const OIDC_ONLY = ['oidc_scopes', 'allowed_redirect_uris', 'verbose_oidc_logging', 'max_age'] as const;

export const rolePaths = [
  // GET answers the list too: python3-hvac lists with `?list=True`, which the HTTP layer reads as a plain GET.
  roleListPath('role', (req) => new JwtStore(req.part).roleNames()),
  definePath({
    pattern: 'role/:name',
    fields: roleFields,
    help: 'A role: the claims a token must carry to log in, the claims that become metadata, and the token settings.',
    exists: async ({ params, part }) => (await new JwtStore(part).role(checkRoleName(params.name ?? ''))) !== undefined,
    operations: {
      read: async (req) => {
        const role = await new JwtStore(req.part).role(checkRoleName(req.data.name));
        if (!role) throw new NotFound();
        return { data: { ...roleView(role), ...tokenSettingsData(role.token) } };
      },
      write: async (req) => {
        const d = req.data;
        const refused = OIDC_ONLY.filter(
          (k) => d[k] !== undefined && d[k] !== false && d[k] !== 0 && !(Array.isArray(d[k]) && !d[k].length),
        );
        if (refused.length) throw new BadRequest(`not supported (no oidc roles), refused rather than ignored: ${refused.join(', ')}`);
        const name = checkRoleName(d.name);
        const store = new JwtStore(req.part);
        const role = buildRole(
          await store.role(name),
          {
            roleType: d.role_type,
            boundAudiences: d.bound_audiences,
            boundSubject: d.bound_subject,
            boundClaimsType: d.bound_claims_type,
            boundClaims: d.bound_claims,
            claimMappings: d.claim_mappings,
            userClaim: d.user_claim,
            userClaimJsonPointer: d.user_claim_json_pointer,
            groupsClaim: d.groups_claim,
            clockSkewLeeway: d.clock_skew_leeway,
            expirationLeeway: d.expiration_leeway,
            notBeforeLeeway: d.not_before_leeway,
          },
          {
            ...d,
            token_ttl: d.token_ttl ?? d.ttl,
            token_max_ttl: d.token_max_ttl ?? d.max_ttl,
            token_period: d.token_period ?? d.period,
            token_num_uses: d.token_num_uses ?? d.num_uses,
            token_bound_cidrs: d.token_bound_cidrs ?? d.bound_cidrs,
          },
        );
        await store.putRole(name, role);
      },
      delete: async (req) => {
        await new JwtStore(req.part).deleteRole(checkRoleName(req.data.name));
      },
    },
  }),
];
