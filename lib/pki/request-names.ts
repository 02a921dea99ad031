/** The names a request asks for (CN and SANs), gathered from the request or from a CSR. */
import { isIP } from 'node:net';
import { domainToASCII } from 'node:url';
import { InvalidInput } from '../domain-errors';
import type { AltNames } from './der/extensions';
import { parseOtherSans, type OtherSan } from './names';
import type { NameSet } from './parse';

export interface NameRequest {
  commonName: string;
  altNames: string[];
  ipSans: string[];
  uriSans: string[];
  otherSans: string[];
  excludeCnFromSans: boolean;
}

export interface Names {
  commonName: string;
  dns: string[];
  email: string[];
  ip: string[];
  uri: string[];
  other: OtherSan[];
  /** The alt names as requested, for the role's checks (those that are no SAN included). */
  requested?: string[];
}

const uniq = (xs: string[]) => [...new Set(xs)];

const LABEL = '([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
/** A host name, optionally a `*.` wildcard, optionally a trailing dot: what may be a dNSName. */
const DNS_NAME = new RegExp(`^(\\*\\.)?(${LABEL}\\.)*${LABEL}\\.?$`);

/**
 * The dNSName for a requested name, as the reference server decides: the name in ASCII (IDNA)
 * when it is a host name or a `*.` wildcard, otherwise none (a person's or a CA's name such as
 * "Example Root CA" is no dNSName, RFC 5280 section 4.2.1.6). IP addresses are never dNSNames.
 */
export function dnsNameOf(name: string): string | undefined {
  if (isIP(name)) return undefined;
  const star = name.startsWith('*.') ? '*.' : '';
  const ascii = /^[\x21-\x7e]*$/.test(name) ? name : star + domainToASCII(name.slice(star.length));
  return DNS_NAME.test(ascii) ? ascii : undefined;
}

function splitNames(names: string[], dns: string[], email: string[]): void {
  for (const n of names) {
    if (n.includes('@')) email.push(n);
    else {
      const d = dnsNameOf(n);
      if (d) dns.push(d);
    }
  }
}

/**
 * The SANs of a request: alt names split into DNS and email (names that are neither are left
 * out), and the CN first unless excluded. A CSR's own SANs (use_csr_sans) are kept as they are.
 */
export function gatherNames(r: NameRequest, fromCsr?: NameSet): Names {
  const dns: string[] = [];
  const email: string[] = [];
  const cn = r.commonName;
  if (cn && !r.excludeCnFromSans) splitNames([cn], dns, email);
  if (fromCsr) {
    dns.push(...fromCsr.dns);
    email.push(...fromCsr.email);
  } else splitNames(r.altNames, dns, email);
  return {
    commonName: cn,
    dns: uniq(dns),
    email: uniq(email),
    ip: uniq(fromCsr ? fromCsr.ip : r.ipSans),
    uri: uniq(fromCsr ? fromCsr.uri : r.uriSans),
    other: fromCsr ? fromCsr.other : parseOtherSans(r.otherSans),
    requested: fromCsr ? [...fromCsr.dns, ...fromCsr.email] : r.altNames,
  };
}

function ipBytes(ip: string): Buffer {
  const v = isIP(ip);
  if (v === 4) return Buffer.from(ip.split('.').map(Number));
  if (v !== 6) throw new InvalidInput(`the value "${ip.slice(0, 80)}" is not a valid IP address`);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const part = (s: string) => (s ? s.split(':') : []);
  let h = part(head);
  let t = part(tail);
  const last = (t.length ? t : h).at(-1) ?? '';
  if (last.includes('.')) {
    const b = last.split('.').map(Number);
    const words = [(((b[0] ?? 0) << 8) | (b[1] ?? 0)).toString(16), (((b[2] ?? 0) << 8) | (b[3] ?? 0)).toString(16)];
    if (t.length) t = [...t.slice(0, -1), ...words];
    else h = [...h.slice(0, -1), ...words];
  }
  const words = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(words.flatMap((w) => [parseInt(w, 16) >> 8, parseInt(w, 16) & 0xff]));
}

export function altNamesOf(n: Names): AltNames {
  return { dns: n.dns, email: n.email, ip: n.ip.map(ipBytes), uri: n.uri, other: n.other };
}
