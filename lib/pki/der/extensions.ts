/** X.509 v3 extensions, encoded directly (RFC 5280 section 4.2). */
import { bool, explicit, implicit, implicitConstructed, int, octets, oid, seq, tlv, utf8 } from './asn1';

export const ext = (id: string, critical: boolean, value: Buffer): Buffer => seq(oid(id), critical ? bool(true) : undefined, octets(value));

export function basicConstraints(ca: boolean, pathLen: number | undefined, critical = true): Buffer {
  return ext(
    '2.5.29.19',
    critical,
    seq(ca ? bool(true) : undefined, ca && pathLen !== undefined && pathLen >= 0 ? int(pathLen) : undefined),
  );
}

/** Key usage names in bit order (Go's x509.KeyUsage constants without the prefix). */
export const KEY_USAGES = [
  'digitalsignature',
  'contentcommitment',
  'keyencipherment',
  'dataencipherment',
  'keyagreement',
  'certsign',
  'crlsign',
  'encipheronly',
  'decipheronly',
] as const;

export function keyUsage(names: string[]): Buffer | undefined {
  let mask = 0;
  for (const n of names) {
    const i = KEY_USAGES.indexOf(n.toLowerCase() as (typeof KEY_USAGES)[number]);
    if (i >= 0) mask |= 1 << i;
  }
  if (!mask) return undefined;
  // Bits are numbered from the most significant bit of the first byte; trailing zero bits dropped.
  const bytes = Buffer.from([0, 0]);
  for (let i = 0; i < 9; i++) if (mask & (1 << i)) bytes[i >> 3]! |= 0x80 >> (i & 7);
  const n = bytes[1] ? 2 : 1;
  const last = bytes[n - 1]!;
  let unused = 0;
  while (unused < 7 && !(last & (1 << unused))) unused++;
  return ext('2.5.29.15', true, tlv(0x03, Buffer.concat([Buffer.from([unused]), bytes.subarray(0, n)])));
}

/** Extended key usage names (Go's ExtKeyUsage constants without the prefix), lower case. */
export const EXT_KEY_USAGES: Record<string, string> = {
  any: '2.5.29.37.0',
  serverauth: '1.3.6.1.5.5.7.3.1',
  clientauth: '1.3.6.1.5.5.7.3.2',
  codesigning: '1.3.6.1.5.5.7.3.3',
  emailprotection: '1.3.6.1.5.5.7.3.4',
  ipsecendsystem: '1.3.6.1.5.5.7.3.5',
  ipsectunnel: '1.3.6.1.5.5.7.3.6',
  ipsecuser: '1.3.6.1.5.5.7.3.7',
  timestamping: '1.3.6.1.5.5.7.3.8',
  ocspsigning: '1.3.6.1.5.5.7.3.9',
  microsoftservergatedcrypto: '1.3.6.1.4.1.311.10.3.3',
  netscapeservergatedcrypto: '2.16.840.1.113730.4.1',
  microsoftcommercialcodesigning: '1.3.6.1.4.1.311.2.1.22',
  microsoftkernelcodesigning: '1.3.6.1.4.1.311.61.1.1',
};

export function extKeyUsage(oids: string[]): Buffer | undefined {
  return oids.length ? ext('2.5.29.37', false, seq(...oids.map(oid))) : undefined;
}

export interface OtherSan {
  oid: string;
  value: string;
}

export interface AltNames {
  dns?: string[];
  email?: string[];
  /** 4 or 16 bytes each. */
  ip?: Buffer[];
  uri?: string[];
  other?: OtherSan[];
}

export function generalNames(n: AltNames): Buffer[] {
  return [
    ...(n.other ?? []).map((o) => implicitConstructed(0, Buffer.concat([oid(o.oid), explicit(0, utf8(o.value))]))),
    ...(n.email ?? []).map((e) => implicit(1, Buffer.from(e, 'utf8'))),
    ...(n.dns ?? []).map((d) => implicit(2, Buffer.from(d, 'utf8'))),
    ...(n.uri ?? []).map((u) => implicit(6, Buffer.from(u, 'utf8'))),
    ...(n.ip ?? []).map((ip) => implicit(7, ip)),
  ];
}

/** Critical when the subject is empty (RFC 5280 4.2.1.6). */
export function subjectAltName(n: AltNames, emptySubject: boolean): Buffer | undefined {
  const names = generalNames(n);
  return names.length ? ext('2.5.29.17', emptySubject, seq(...names)) : undefined;
}

export const subjectKeyId = (id: Buffer): Buffer => ext('2.5.29.14', false, octets(id));
export const authorityKeyId = (id: Buffer): Buffer => ext('2.5.29.35', false, seq(implicit(0, id)));

export function nameConstraints(permittedDns: string[]): Buffer | undefined {
  if (!permittedDns.length) return undefined;
  const subtrees = permittedDns.map((d) => seq(implicit(2, Buffer.from(d, 'utf8'))));
  return ext('2.5.29.30', true, seq(implicitConstructed(0, Buffer.concat(subtrees))));
}

export function certificatePolicies(oids: string[]): Buffer | undefined {
  return oids.length ? ext('2.5.29.32', false, seq(...oids.map((o) => seq(oid(o))))) : undefined;
}

export function crlDistributionPoints(urls: string[], id = '2.5.29.31'): Buffer | undefined {
  if (!urls.length) return undefined;
  const names = urls.map((u) => implicit(6, Buffer.from(u, 'utf8')));
  return ext(id, false, seq(seq(explicit(0, implicitConstructed(0, Buffer.concat(names))))));
}

/** Freshest CRL (RFC 5280 4.2.1.15, 5.2.6): where the delta CRLs are, in the CRL distribution points syntax. */
export const freshestCrl = (urls: string[]): Buffer | undefined => crlDistributionPoints(urls, '2.5.29.46');

export function authorityInfoAccess(issuers: string[], ocsp: string[]): Buffer | undefined {
  const items = [
    ...ocsp.map((u) => seq(oid('1.3.6.1.5.5.7.48.1'), implicit(6, Buffer.from(u, 'utf8')))),
    ...issuers.map((u) => seq(oid('1.3.6.1.5.5.7.48.2'), implicit(6, Buffer.from(u, 'utf8')))),
  ];
  return items.length ? ext('1.3.6.1.5.5.7.1.1', false, seq(...items)) : undefined;
}
