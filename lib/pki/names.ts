/**
 * The role's name policy (the spec's role rules): which common names, DNS and email SANs,
 * IP, URI and other SANs, and subject serial numbers a role may put into a certificate.
 * Every function throws a 400 naming the first name the role does not allow.
 */
import { isIP } from 'node:net';
import { InvalidInput } from '../domain-errors';
import type { Role } from './role';

type NamePolicy = Pick<
  Role,
  | 'allowLocalhost'
  | 'allowedDomains'
  | 'allowBareDomains'
  | 'allowSubdomains'
  | 'allowGlobDomains'
  | 'allowWildcardCertificates'
  | 'allowAnyName'
  | 'enforceHostnames'
>;

/** Shell-style glob where `*` matches any run of characters, dots included. */
export function globMatch(pattern: string, value: string): boolean {
  const re = pattern
    .split('*')
    .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`, 'is').test(value);
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

export function isHostname(name: string): boolean {
  const n = name.endsWith('.') ? name.slice(0, -1) : name;
  return n.length > 0 && n.length <= 253 && n.split('.').every((l) => LABEL.test(l));
}

/** RFC 6125 wildcard: one `*` in the left-most label only. Returns the label split, or undefined. */
function wildcardParts(name: string): { left: string; rest: string } | undefined {
  if (!name.includes('*')) return undefined;
  const dot = name.indexOf('.');
  const left = dot < 0 ? name : name.slice(0, dot);
  const rest = dot < 0 ? '' : name.slice(dot + 1);
  if (rest.includes('*') || left.split('*').length !== 2 || !rest)
    throw new InvalidInput(`invalid wildcard name "${name}": one "*" in the left-most label only`);
  return { left, rest };
}

/** Whether the host part (after any `user@`) passes enforce_hostnames, wildcards considered. */
function hostnameOk(host: string, wildcard: { left: string; rest: string } | undefined): boolean {
  if (!wildcard) return isHostname(host);
  const leftRest = wildcard.left.replace('*', '');
  return (leftRest === '' || LABEL.test(leftRest) || /^[a-z0-9-]+$/i.test(leftRest)) && isHostname(wildcard.rest);
}

function matchesDomains(p: NamePolicy, host: string, wildcard: { left: string; rest: string } | undefined): boolean {
  const lower = host.toLowerCase();
  for (const raw of p.allowedDomains) {
    if (raw.includes('{{')) continue; // templates need identity data this service does not have
    const d = raw.toLowerCase();
    if (p.allowBareDomains && lower === d) return true;
    if (p.allowSubdomains) {
      const base = d.startsWith('*.') ? d.slice(2) : d;
      if (lower.endsWith('.' + base) && (!wildcard || wildcard.rest === base || wildcard.rest.endsWith('.' + base))) return true;
    }
    if (p.allowGlobDomains && d.includes('*') && globMatch(d, lower)) return true;
  }
  return false;
}

/** Checks one CN / DNS SAN / email SAN against the role; throws when not allowed. */
export function checkName(p: NamePolicy, name: string): void {
  const at = name.lastIndexOf('@');
  const host = at >= 0 ? name.slice(at + 1) : name;
  if (!host || name.length > 1024) throw new InvalidInput(`invalid name "${name.slice(0, 80)}"`);
  const wildcard = wildcardParts(host);
  if (wildcard && !p.allowWildcardCertificates)
    throw new InvalidInput(`name ${name} not allowed by this role: wildcard certificates are not allowed`);
  if (p.enforceHostnames && !hostnameOk(host, wildcard))
    throw new InvalidInput(`name ${name} not allowed by this role: not a valid host name`);
  if (p.allowAnyName) return;
  if (p.allowLocalhost && ['localhost', 'localdomain'].includes(host.toLowerCase())) return;
  if (matchesDomains(p, host, wildcard)) return;
  throw new InvalidInput(`${name} is not allowed by this role`);
}

export function checkNames(p: NamePolicy, names: string[]): void {
  for (const n of names) checkName(p, n);
}

export function checkIpSans(role: Pick<Role, 'allowIpSans'>, ips: string[]): void {
  if (ips.length && !role.allowIpSans)
    throw new InvalidInput(`IP Subject Alternative Names are not allowed in this role, but was provided ${ips.join(', ')}`);
  for (const ip of ips) if (!isIP(ip)) throw new InvalidInput(`the value "${ip.slice(0, 80)}" is not a valid IP address`);
}

export function checkUriSans(role: Pick<Role, 'allowedUriSans'>, uris: string[]): void {
  for (const u of uris) {
    if (!URL.canParse(u)) throw new InvalidInput(`the value "${u.slice(0, 80)}" is not a valid URI`);
    if (!role.allowedUriSans.some((g) => !g.includes('{{') && globMatch(g, u)))
      throw new InvalidInput(`URI Subject Alternative Names are not allowed in this role, but was provided ${u}`);
  }
}

export interface OtherSan {
  oid: string;
  value: string;
}

/** Parses `<oid>;UTF8:<value>` entries. */
export function parseOtherSans(entries: string[]): OtherSan[] {
  return entries.map((e) => {
    const m = /^([0-2](?:\.\d{1,10}){1,30});(UTF8|UTF-8):(.*)$/s.exec(e);
    if (!m) throw new InvalidInput(`invalid other_sans entry "${e.slice(0, 80)}": expected <oid>;UTF8:<value>`);
    return { oid: m[1]!, value: m[3]! };
  });
}

export function checkOtherSans(role: Pick<Role, 'allowedOtherSans'>, sans: OtherSan[]): void {
  if (!sans.length || role.allowedOtherSans.includes('*')) return;
  const allowed = parseOtherSans(role.allowedOtherSans);
  for (const s of sans) {
    if (!allowed.some((a) => a.oid === s.oid && (a.value === '*' || globMatch(a.value, s.value)))) {
      throw new InvalidInput(`requested other SAN does not match allowed other SANs: ${s.oid};UTF8:${s.value}`);
    }
  }
}

export function checkSerialNumber(role: Pick<Role, 'allowedSerialNumbers'>, serial: string): void {
  if (!serial) return;
  if (!role.allowedSerialNumbers.some((g) => globMatch(g, serial)))
    throw new InvalidInput(`serial_number ${serial} not allowed by this role`);
}
