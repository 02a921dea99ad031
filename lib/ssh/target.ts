/** Who and where credentials of an OTP or dynamic role may be for: username and IP rules. */
import { InvalidInput } from '../domain-errors';
import { checkIp, ipInBlocks } from '../net/cidr';
import type { Role } from './role';
import { quoted } from '../quote';

const USER = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

export function targetUser(role: Role, requested: string): string {
  const user = requested || role.defaultUser;
  if (!USER.test(user)) throw new InvalidInput(`invalid username${quoted(user)}`);
  const allowed = role.allowedUsers;
  if (allowed.length === 0 || allowed.includes('*') || user === role.defaultUser || allowed.includes(user)) return user;
  throw new InvalidInput(`username${quoted(user)} is not allowed by role`);
}

/**
 * Whether the role accepts `ip`: a zero-address role any address, any other one the addresses of
 * its cidr_list (none when it has none); either way none of its exclude_cidr_list.
 */
export function roleAcceptsIp(role: Role, ip: string, zeroAddress: boolean): boolean {
  if (role.keyType === 'ca') return false;
  if (ipInBlocks(ip, role.excludeCidrList)) return false;
  return zeroAddress || ipInBlocks(ip, role.cidrList);
}

/** The target address of a creds request (trimmed), or a 400 naming the rule that refuses it. */
export function checkTargetIp(role: Role, roleName: string, ipText: string, zeroAddress: boolean): string {
  const ip = checkIp(ipText.trim());
  if (!zeroAddress && role.cidrList.length === 0) {
    throw new InvalidInput(`IP ${ip} does not belong to role "${roleName}": it has no cidr_list and is not listed in config/zeroaddress`);
  }
  if (ipInBlocks(ip, role.excludeCidrList)) throw new InvalidInput(`IP ${ip} is in the exclude_cidr_list of role "${roleName}"`);
  if (!zeroAddress && !ipInBlocks(ip, role.cidrList)) throw new InvalidInput(`IP ${ip} does not belong to role "${roleName}"`);
  return ip;
}
