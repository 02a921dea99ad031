/** CIDR blocks and addresses of OTP and dynamic roles (lib/ssh/cidr.ts). */
import { describe, expect, it } from 'vitest';
import { InvalidInput } from '../../lib/domain-errors';
import { checkIp, ipInBlocks, validateCidrs } from '../../lib/net/cidr';

describe('validateCidrs', () => {
  it('accepts IPv4 and IPv6 blocks and bare addresses', () => {
    const blocks = ['10.0.0.0/8', '0.0.0.0/0', '192.168.1.7', 'fd00::/8', '::1', '::/0', '10.0.0.1/32', '2001:db8::/128'];
    expect(validateCidrs(blocks, 'cidr_list')).toEqual(blocks);
  });
  it.each([
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/',
    '10.0.0.0/8/8',
    '10.0.0.0/-1',
    '10.0.0.0/1e1',
    '10.0.0/8',
    'host.example.com',
    '',
    '10.0.0.0/0008',
  ])('refuses %j, naming the field', (block) => {
    expect(() => validateCidrs(['10.0.0.0/8', block], 'exclude_cidr_list')).toThrow(InvalidInput);
    expect(() => validateCidrs([block], 'exclude_cidr_list')).toThrow(/^invalid CIDR block.* in exclude_cidr_list$/);
  });
  it('quotes a short plain block back, never a long or odd one', () => {
    expect(() => validateCidrs(['10.0.0.0/33'], 'cidr_list')).toThrow('invalid CIDR block "10.0.0.0/33" in cidr_list');
    expect(() => validateCidrs(['x'.repeat(100)], 'cidr_list')).toThrow(/^invalid CIDR block in cidr_list$/);
  });
});

describe('checkIp', () => {
  it('returns an IPv4 or IPv6 address, refuses anything else with a 400', () => {
    expect(checkIp('10.1.2.3')).toBe('10.1.2.3');
    expect(checkIp('fd00::1')).toBe('fd00::1');
    for (const bad of ['10.1.2.256', '10.1.2', 'localhost', '', '10.0.0.0/8']) expect(() => checkIp(bad)).toThrow(/^invalid IP address/);
  });
});

describe('ipInBlocks', () => {
  it.each([
    ['inside a block', '10.1.2.3', ['10.0.0.0/8'], true],
    ['outside every block', '11.0.0.1', ['10.0.0.0/8', '192.168.0.0/16'], false],
    ['in the second block', '192.168.3.4', ['10.0.0.0/8', '192.168.0.0/16'], true],
    ['a bare address as a host block', '10.0.0.1', ['10.0.0.1'], true],
    ['next to a host block', '10.0.0.2', ['10.0.0.1'], false],
    ['IPv6 inside', 'fd00::1', ['fd00::/8'], true],
    ['IPv6 against an IPv4 block', 'fd00::1', ['0.0.0.0/0'], false],
    ['IPv4 against an IPv6 block', '10.0.0.1', ['fd00::/8'], false],
    ['no blocks at all', '10.0.0.1', [], false],
    ['no address at all', 'not-an-ip', ['0.0.0.0/0'], false],
  ] as const)('%s', (_w, ip, blocks, inside) => {
    expect(ipInBlocks(ip, [...blocks])).toBe(inside);
  });
});
