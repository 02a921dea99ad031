/** The names a request asks for (CN and SANs), gathered from the request or from a CSR. */
import { isIP } from 'node:net';
import { BadRequest } from '../errors';
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
}

const uniq = (xs: string[]) => [...new Set(xs)];

/** Splits alt names into DNS and email and adds the CN unless excluded. */
export function gatherNames(r: NameRequest, fromCsr?: NameSet): Names {
  const alt = fromCsr ? [...fromCsr.dns, ...fromCsr.email] : r.altNames;
  const dns = alt.filter((n) => !n.includes('@'));
  const email = alt.filter((n) => n.includes('@'));
  const cn = r.commonName;
  if (cn && !r.excludeCnFromSans) {
    if (cn.includes('@')) email.unshift(cn);
    else if (!isIP(cn)) dns.unshift(cn);
  }
  return {
    commonName: cn,
    dns: uniq(dns),
    email: uniq(email),
    ip: uniq(fromCsr ? fromCsr.ip : r.ipSans),
    uri: uniq(fromCsr ? fromCsr.uri : r.uriSans),
    other: fromCsr ? fromCsr.other : parseOtherSans(r.otherSans),
  };
}

function ipBytes(ip: string): Buffer {
  const v = isIP(ip);
  if (v === 4) return Buffer.from(ip.split('.').map(Number));
  if (v !== 6) throw new BadRequest(`the value "${ip.slice(0, 80)}" is not a valid IP address`);
  const [head = '', tail = ''] = ip.includes('::') ? ip.split('::') : [ip, ''];
  const part = (s: string) => (s ? s.split(':') : []);
  let h = part(head);
  let t = part(tail);
  const last = (t.length ? t : h).at(-1) ?? '';
  if (last.includes('.')) {
    const b = last.split('.').map(Number);
    const words = [((b[0] ?? 0) << 8 | (b[1] ?? 0)).toString(16), ((b[2] ?? 0) << 8 | (b[3] ?? 0)).toString(16)];
    if (t.length) t = [...t.slice(0, -1), ...words];
    else h = [...h.slice(0, -1), ...words];
  }
  const words = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return Buffer.from(words.flatMap((w) => [parseInt(w, 16) >> 8, parseInt(w, 16) & 0xff]));
}

export function altNamesOf(n: Names): AltNames {
  return { dns: n.dns, email: n.email, ip: n.ip.map(ipBytes), uri: n.uri, other: n.other };
}
