/** Which requested names become which SANs (lib/pki/request-names.ts), as the reference decides. */
import { describe, expect, it } from 'vitest';
import { dnsNameOf, gatherNames } from '../../lib/pki/request-names';

describe('which requested names become dNSName SANs (as the reference decides)', () => {
  const cases: [string, string | undefined][] = [
    ['www.example.com', 'www.example.com'],
    ['*.example.com', '*.example.com'],
    ['example.com.', 'example.com.'],
    ['localhost', 'localhost'],
    ['bücher.example', 'xn--bcher-kva.example'],
    ['*.bücher.example', '*.xn--bcher-kva.example'],
    ['Example Root CA', undefined],
    ['John Smith', undefined],
    ['a_b.example.com', undefined],
    ['f*o.example.com', undefined],
    ['-x.example.com', undefined],
    ['10.0.0.1', undefined],
    ['::1', undefined],
    ['', undefined],
  ];
  for (const [name, dns] of cases) it(`${JSON.stringify(name)} -> ${dns ?? 'no dNSName'}`, () => expect(dnsNameOf(name)).toBe(dns));

  it('gathers a CN that is no host name into no SAN, an email CN into rfc822Name, and keeps the rest', () => {
    const n = gatherNames({
      commonName: 'John Smith',
      altNames: ['a.example.com', 'Not A Host', 'x@example.com'],
      ipSans: [],
      uriSans: [],
      otherSans: [],
      excludeCnFromSans: false,
    });
    expect(n).toMatchObject({
      dns: ['a.example.com'],
      email: ['x@example.com'],
      requested: ['a.example.com', 'Not A Host', 'x@example.com'],
    });
    expect(
      gatherNames({ commonName: 'j@example.com', altNames: [], ipSans: [], uriSans: [], otherSans: [], excludeCnFromSans: false }).email,
    ).toEqual(['j@example.com']);
  });
});
