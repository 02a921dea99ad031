/** IP addresses as the validators need them: bytes, the reverse-DNS name (RFC 8738), URL and Host forms, the resolver setting. */
import { isIP } from 'node:net';

/** The address's 4 or 16 bytes, or undefined when it is not an IP address. */
export function ipBytes(ip: string): Buffer | undefined {
  const v = isIP(ip);
  if (v === 4) return Buffer.from(ip.split('.').map(Number));
  if (v !== 6) return undefined;
  let text = ip;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const words = (s: string) => (s ? s.split(':') : []);
  const left = words(head);
  const right = tail === undefined ? [] : words(tail);
  const all = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return Buffer.from(all.flatMap((w) => [parseInt(w, 16) >> 8, parseInt(w, 16) & 0xff]));
}

/**
 * The reverse-DNS name of an address, which tls-alpn-01 sends as SNI for an ip identifier
 * (RFC 8738 section 6): `4.3.2.1.in-addr.arpa`, or the 32 nibbles of an IPv6 address under `ip6.arpa`.
 */
export function reverseName(ip: string): string {
  const b = ipBytes(ip);
  if (!b) throw new Error('not an IP address');
  if (b.length === 4) return `${[...b].reverse().join('.')}.in-addr.arpa`;
  const nibbles = [...b].flatMap((x) => [x >> 4, x & 0xf]).map((n) => n.toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/** The host as it stands in a URL or a Host header: an IPv6 address in brackets. */
export const urlHost = (host: string): string => (isIP(host) === 6 ? `[${host}]` : host);

/** A Host header value: the host, and the port when it is not the scheme's default. */
export function hostHeader(host: string, port: number, scheme: 'http' | 'https'): string {
  const defaultPort = scheme === 'http' ? 80 : 443;
  return port === defaultPort ? urlHost(host) : `${urlHost(host)}:${port}`;
}

/** A resolver setting ("ip", "ip:port", "[ipv6]:port", or a bare IPv6 address) as node's setServers takes it, or undefined when it is none. */
export function resolverServer(setting: string): string | undefined {
  const s = setting.trim();
  if (isIP(s)) return s;
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(s);
  if (!m) return undefined;
  const host = m[1] ?? m[2] ?? '';
  const port = Number(m[3]);
  if (port < 1 || port > 65_535 || isIP(host) !== (m[1] !== undefined ? 6 : 4)) return undefined;
  return m[1] !== undefined ? `[${host}]:${port}` : `${host}:${port}`;
}
