/** valid_principals: users against allowed_users, hosts against allowed_domains. */
import { InvalidInput } from '../domain-errors';
import { expandAll, expandTemplate } from '../identity-template';
import type { LoginIdentity } from '../types';
import type { Role } from './role';
import { plainOr } from '../quote';

export interface Caller {
  displayName: string;
  /** The login identity of the calling token, for identity templates. */
  identity?: LoginIdentity | undefined;
}

function allowedUsers(role: Role, caller: Caller): string[] {
  if (!role.allowedUsersTemplate) return role.allowedUsers;
  return expandAll(role.allowedUsers, caller.identity);
}

/** The role's default user for this caller: a template when default_user_template is set (nothing when it cannot be resolved). */
export function defaultUser(role: Role, caller: Caller): string {
  if (!role.defaultUserTemplate) return role.defaultUser;
  return expandTemplate(role.defaultUser, caller.identity) ?? '';
}

export function userPrincipals(role: Role, requested: string[], caller: Caller): string[] {
  const fallback = defaultUser(role, caller);
  const principals = requested.length ? requested : fallback ? [fallback] : [];
  if (principals.length === 0) throw new InvalidInput('empty valid principals not allowed by role');
  const allowed = allowedUsers(role, caller);
  if (allowed.includes('*')) return principals;
  const refused = principals.filter((p) => !allowed.includes(p));
  if (refused.length) throw new InvalidInput(`${refused.map((p) => plainOr(p)).join(', ')} is not a valid value for valid_principals`);
  return principals;
}

function hostAllowed(role: Role, host: string): boolean {
  const name = host.toLowerCase();
  return role.allowedDomains.some((raw) => {
    const d = raw.toLowerCase();
    return (
      d === '*' || (role.allowBareDomains && name === d) || (role.allowSubdomains && name.endsWith(`.${d}`) && name.length > d.length + 1)
    );
  });
}

export function hostPrincipals(role: Role, requested: string[]): string[] {
  if (requested.length === 0) throw new InvalidInput('empty valid principals not allowed by role');
  const refused = requested.filter((h) => !hostAllowed(role, h));
  if (refused.length) throw new InvalidInput(`${refused.map((p) => plainOr(p)).join(', ')} is not a valid value for valid_principals`);
  return requested;
}
