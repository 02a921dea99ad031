/** IP addresses and CIDR blocks: SSH OTP and dynamic roles, token and secret id bindings. */
import { BlockList, isIP } from 'node:net';
import { InvalidInput } from '../domain-errors';
import { quoted } from '../quote';

const family = (ip: string): 'ipv4' | 'ipv6' | undefined => {
  const v = isIP(ip);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
};

/** Checks each block is `address/prefix` (a bare address counts as a host block); returns them trimmed. */
export function validateCidrs(blocks: string[], field: string): string[] {
  for (const b of blocks) parseBlock(b, field);
  return blocks;
}

function parseBlock(block: string, field: string): { addr: string; prefix: number; fam: 'ipv4' | 'ipv6' } {
  const [addr = '', prefixText, extra] = block.split('/');
  const fam = family(addr);
  const max = fam === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!fam || extra !== undefined || !(prefix >= 0 && prefix <= max))
    throw new InvalidInput(`invalid CIDR block${quoted(block)} in ${field}`);
  return { addr, prefix, fam };
}

/**
 * An IP address or CIDR block in one spelling (IPv6 compressed and lower case, a prefix without
 * leading zeros); anything else as given, trimmed.
 */
export function canonicalAddress(text: string): string {
  const t = text.trim();
  const [addr = '', prefix, extra] = t.split('/');
  const fam = family(addr);
  if (!fam || extra !== undefined || (prefix !== undefined && !/^\d{1,3}$/.test(prefix))) return t;
  const a = fam === 'ipv6' ? new URL(`http://[${addr}]/`).hostname.slice(1, -1) : addr;
  return prefix === undefined ? a : `${a}/${Number(prefix)}`;
}

export function checkIp(ip: string): string {
  if (!family(ip)) throw new InvalidInput(`invalid IP address${quoted(ip)}`);
  return ip;
}

export function ipInBlocks(ip: string, blocks: string[]): boolean {
  const fam = family(ip);
  if (!fam || blocks.length === 0) return false;
  const list = new BlockList();
  for (const b of blocks) {
    const p = parseBlock(b, 'cidr_list');
    list.addSubnet(p.addr, p.prefix, p.fam);
  }
  return list.check(ip, fam);
}
