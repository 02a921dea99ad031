/**
 * A jwt login, as the reference's path_login: verify the signature with the mount's keys and
 * algorithms, check the registered claims (issuer, subject, audiences, time), name the user,
 * apply the bound claims and map claims to metadata. Throws InvalidInput with a message that
 * names what failed and never carries the token or a claim's value.
 */
import { InvalidInput } from '../../domain-errors';
import { checkBoundClaims, getClaim, mappedMetadata, userName, type Claims } from './claims';
import { algorithmsOf, type JwtConfig } from './config';
import { checkExpected } from './expected';
import type { Verifier } from './keys';
import type { JwtRole } from './role';

export interface LoginIdentity {
  /** The user claim's value: the alias name and the display name. */
  name: string;
  /** `role` and the mapped claims: the token's and the alias's metadata. */
  metadata: Record<string, string>;
}

/** A compact JWS has three base64url parts; anything else is refused before any key is fetched. */
const COMPACT = /^[\w-]+\.[\w-]+\.[\w-]*$/;
export const MAX_JWT_LENGTH = 64 * 1024;

export async function authenticate(
  token: string,
  roleName: string,
  role: JwtRole,
  config: JwtConfig,
  verifier: Verifier,
  nowSeconds: number,
): Promise<LoginIdentity> {
  if (token.length > MAX_JWT_LENGTH || !COMPACT.test(token))
    throw new InvalidInput('error validating token: not a compact JWS (header.payload.signature)');
  let claims: Claims;
  try {
    claims = await verifier.verify(token, algorithmsOf(config));
    checkExpected(
      claims,
      {
        issuer: config.boundIssuer,
        subject: role.boundSubject,
        audiences: role.boundAudiences,
        clockSkewLeeway: role.clockSkewLeeway,
        expirationLeeway: role.expirationLeeway,
        notBeforeLeeway: role.notBeforeLeeway,
      },
      nowSeconds,
    );
  } catch (e) {
    if (e instanceof InvalidInput) throw new InvalidInput(`error validating token: ${e.message}`);
    throw e;
  }
  const name = userName(claims, role.userClaim, role.userClaimJsonPointer);
  const metadata = { ...mappedMetadata(claims, role.claimMappings), role: roleName };
  if (role.groupsClaim) checkGroups(claims, role.groupsClaim);
  try {
    checkBoundClaims(claims, role.boundClaims, role.boundClaimsType === 'glob');
  } catch (e) {
    if (e instanceof InvalidInput) throw new InvalidInput(`error validating claims: ${e.message}`);
    throw e;
  }
  return { name, metadata };
}

/** The reference requires the groups claim to be there and a list of strings (groups grant nothing here). */
function checkGroups(claims: Claims, groupsClaim: string): void {
  const v = getClaim(claims, groupsClaim);
  if (v === undefined || v === null) throw new InvalidInput(`failed to fetch groups: "${groupsClaim}" claim not found in token`);
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((g) => typeof g === 'string')) throw new InvalidInput(`"${groupsClaim}" claim could not be converted to string list`);
}
