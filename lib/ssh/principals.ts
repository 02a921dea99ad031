/** valid_principals: users against allowed_users, hosts against allowed_domains. */
import { BadRequest } from '../errors';
import type { Role } from './role';
import { plain } from '../echo';

export interface Caller {
  displayName: string;
}

const TEMPLATE = /\{\{\s*([\w.-]+)\s*\}\}/g;

/** Expands identity templates; an entry whose template cannot be resolved is dropped. */
function expand(entry: string, caller: Caller): string | undefined {
  let unresolved = false;
  const out = entry.replace(TEMPLATE, (_m, name: string) => {
    if (name === 'identity.entity.name' || name === 'token_display_name' || /^identity\.entity\.aliases\.[\w-]+\.name$/.test(name)) return caller.displayName;
    unresolved = true;
    return '';
  });
  return unresolved ? undefined : out;
}

function allowedUsers(role: Role, caller: Caller): string[] {
  if (!role.allowedUsersTemplate) return role.allowedUsers;
  return role.allowedUsers.flatMap((u) => expand(u, caller) ?? []);
}

export function userPrincipals(role: Role, requested: string[], caller: Caller): string[] {
  const principals = requested.length ? requested : role.defaultUser ? [role.defaultUser] : [];
  if (principals.length === 0) throw new BadRequest('empty valid principals not allowed by role');
  const allowed = allowedUsers(role, caller);
  if (allowed.includes('*')) return principals;
  const refused = principals.filter((p) => !allowed.includes(p));
  if (refused.length) throw new BadRequest(`${refused.map((p) => plain(p)).join(', ')} is not a valid value for valid_principals`);
  return principals;
}

function hostAllowed(role: Role, host: string): boolean {
  const name = host.toLowerCase();
  return role.allowedDomains.some((raw) => {
    const d = raw.toLowerCase();
    return d === '*' || (role.allowBareDomains && name === d) || (role.allowSubdomains && name.endsWith(`.${d}`) && name.length > d.length + 1);
  });
}

export function hostPrincipals(role: Role, requested: string[]): string[] {
  if (requested.length === 0) throw new BadRequest('empty valid principals not allowed by role');
  const refused = requested.filter((h) => !hostAllowed(role, h));
  if (refused.length) throw new BadRequest(`${refused.map((p) => plain(p)).join(', ')} is not a valid value for valid_principals`);
  return requested;
}
