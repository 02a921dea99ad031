/** Address helpers of the validators: bytes, reverse-DNS names (RFC 8738), Host headers, the resolver setting. */
import { describe, expect, it } from 'vitest';
import { hostHeader, ipBytes, resolverServer, reverseName, urlHost } from '../../../../lib/pki/acme/validate/address';

describe('validation addresses', () => {
  it('reads IPv4 and IPv6 addresses to bytes', () => {
    expect(ipBytes('192.0.2.1')).toEqual(Buffer.from([192, 0, 2, 1]));
    expect(ipBytes('::1')).toEqual(Buffer.from([...Array(15).fill(0), 1]));
    expect(ipBytes('2001:db8::ff00:42:8329')?.toString('hex')).toBe('20010db8000000000000ff0000428329');
    expect(ipBytes('::ffff:192.0.2.1')?.toString('hex')).toBe('00000000000000000000ffffc0000201');
    expect(ipBytes('fe80::')?.toString('hex')).toBe('fe800000000000000000000000000000');
    expect(ipBytes('a.example')).toBeUndefined();
  });

  it('names an address in reverse DNS as RFC 8738 says', () => {
    expect(reverseName('127.0.0.1')).toBe('1.0.0.127.in-addr.arpa');
    expect(reverseName('2001:db8::567:89ab')).toBe('b.a.9.8.7.6.5.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  });

  it('writes hosts for URLs and Host headers', () => {
    expect(urlHost('::1')).toBe('[::1]');
    expect(urlHost('a.example')).toBe('a.example');
    expect(hostHeader('a.example', 80, 'http')).toBe('a.example');
    expect(hostHeader('a.example', 5002, 'http')).toBe('a.example:5002');
    expect(hostHeader('::1', 443, 'https')).toBe('[::1]');
  });

  it('takes a resolver as ip, ip:port, [ipv6]:port or a bare IPv6 address, and nothing else', () => {
    expect(resolverServer('10.0.0.2')).toBe('10.0.0.2');
    expect(resolverServer('127.0.0.1:5353')).toBe('127.0.0.1:5353');
    expect(resolverServer('[::1]:53')).toBe('[::1]:53');
    expect(resolverServer('::1')).toBe('::1');
    for (const bad of ['dns.example:53', '127.0.0.1:0', '127.0.0.1:70000', '[127.0.0.1]:53', '::1:53x', ''])
      expect(resolverServer(bad), bad).toBeUndefined();
  });
});
