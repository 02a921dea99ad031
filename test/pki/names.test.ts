/** The spec's role rules for names, as a table over the pure policy functions. */
import { describe, expect, it } from 'vitest';
import { checkIpSans, checkName, checkOtherSans, checkSerialNumber, checkUriSans, globMatch, parseOtherSans } from '../../lib/pki/names';

const base = {
  allowLocalhost: true,
  allowedDomains: [] as string[],
  allowBareDomains: false,
  allowSubdomains: false,
  allowGlobDomains: false,
  allowWildcardCertificates: true,
  allowAnyName: false,
  enforceHostnames: true,
};

type Policy = Partial<typeof base>;
const allowed = (p: Policy, name: string) => {
  try {
    checkName({ ...base, ...p }, name);
    return true;
  } catch {
    return false;
  }
};

const CASES: [string, Policy, string, boolean][] = [
  ['subdomain of an allowed domain', { allowedDomains: ['example.com'], allowSubdomains: true }, 'www.example.com', true],
  ['deep subdomain', { allowedDomains: ['example.com'], allowSubdomains: true }, 'a.b.example.com', true],
  ['bare domain needs allow_bare_domains', { allowedDomains: ['example.com'], allowSubdomains: true }, 'example.com', false],
  ['bare domain allowed', { allowedDomains: ['example.com'], allowBareDomains: true }, 'example.com', true],
  ['bare only: no subdomains', { allowedDomains: ['example.com'], allowBareDomains: true }, 'www.example.com', false],
  ['suffix without a dot is not a subdomain', { allowedDomains: ['example.com'], allowSubdomains: true }, 'badexample.com', false],
  ['case-insensitive', { allowedDomains: ['Example.COM'], allowSubdomains: true }, 'WWW.example.com', true],
  ['other domain', { allowedDomains: ['example.com'], allowSubdomains: true }, 'www.example.org', false],
  ['wildcard subdomain with allow_subdomains', { allowedDomains: ['example.com'], allowSubdomains: true }, '*.example.com', true],
  ['partial-label wildcard foo*', { allowedDomains: ['example.com'], allowSubdomains: true }, 'foo*.example.com', true],
  ['partial-label wildcard *foo', { allowedDomains: ['example.com'], allowSubdomains: true }, '*foo.example.com', true],
  ['partial-label wildcard f*o', { allowedDomains: ['example.com'], allowSubdomains: true }, 'f*o.example.com', true],
  ['two wildcards are not RFC 6125', { allowedDomains: ['example.com'], allowSubdomains: true }, '*.*.example.com', false],
  ['wildcard not in the left-most label', { allowedDomains: ['example.com'], allowSubdomains: true }, 'a.*.example.com', false],
  [
    'allow_wildcard_certificates false refuses wildcards',
    { allowedDomains: ['example.com'], allowSubdomains: true, allowWildcardCertificates: false },
    '*.example.com',
    false,
  ],
  ['wildcard refused even with allow_any_name', { allowAnyName: true, allowWildcardCertificates: false }, '*.example.com', false],
  ['glob spans labels', { allowedDomains: ['*.example.com'], allowGlobDomains: true }, 'a.b.example.com', true],
  ['glob without allow_glob_domains', { allowedDomains: ['*.example.com'] }, 'a.example.com', false],
  ['glob does not match the bare domain', { allowedDomains: ['*.example.com'], allowGlobDomains: true }, 'example.com', false],
  [
    'spec example: foo.*.example.com glob matches foo.baz.example.com',
    { allowedDomains: ['foo.*.example.com'], allowGlobDomains: true, allowSubdomains: true },
    'foo.baz.example.com',
    true,
  ],
  [
    'spec example: bar.foo.baz.example.com is not permitted',
    { allowedDomains: ['foo.*.example.com'], allowGlobDomains: true, allowSubdomains: true },
    'bar.foo.baz.example.com',
    false,
  ],
  [
    'rule 4: wildcard allowed domain + bare + wildcards',
    { allowedDomains: ['*.example.com'], allowBareDomains: true },
    '*.example.com',
    true,
  ],
  ['globs match wildcard names', { allowedDomains: ['*.example.com'], allowGlobDomains: true }, '*.example.com', true],
  ['localhost allowed by default', {}, 'localhost', true],
  ['localdomain allowed by default', {}, 'localdomain', true],
  ['localhost refused when allow_localhost is false', { allowLocalhost: false }, 'localhost', false],
  [
    'localhost still allowed by allowed_domains',
    { allowLocalhost: false, allowedDomains: ['localhost'], allowBareDomains: true },
    'localhost',
    true,
  ],
  ['allow_any_name', { allowAnyName: true }, 'anything.example.net', true],
  ['allow_any_name still enforces host names', { allowAnyName: true }, 'not a host', false],
  ['enforce_hostnames false lets a free-form CN through', { allowAnyName: true, enforceHostnames: false }, 'My Service', true],
  ['label over 63 characters', { allowAnyName: true }, `${'a'.repeat(64)}.example.com`, false],
  ['leading hyphen', { allowedDomains: ['example.com'], allowSubdomains: true }, '-bad.example.com', false],
  ['email SAN: the host part is matched', { allowedDomains: ['example.com'], allowBareDomains: true }, 'ops@example.com', true],
  ['email SAN of another domain', { allowedDomains: ['example.com'], allowBareDomains: true }, 'ops@example.org', false],
  ['email host must be a host name', { allowAnyName: true }, 'ops@bad host', false],
  [
    'an unexpanded template matches nothing (roleForCaller fills them in)',
    { allowedDomains: ['{{identity.entity.name}}.example.com'], allowBareDomains: true },
    'x.example.com',
    false,
  ],
];

describe('role name rules', () => {
  for (const [title, policy, name, ok] of CASES) {
    it(`${ok ? 'allows' : 'refuses'} ${name}: ${title}`, () => expect(allowed(policy, name)).toBe(ok));
  }
});

describe('IP, URI, other SANs and subject serial numbers', () => {
  it('IP SANs need allow_ip_sans and valid addresses', () => {
    expect(() => checkIpSans({ allowIpSans: true }, ['10.0.0.1', '::1'])).not.toThrow();
    expect(() => checkIpSans({ allowIpSans: false }, ['10.0.0.1'])).toThrow(/not allowed/);
    expect(() => checkIpSans({ allowIpSans: true }, ['10.0.0.256'])).toThrow(/not a valid IP/);
  });
  it('URI SANs match allowed_uri_sans globs; none allowed by default', () => {
    expect(() => checkUriSans({ allowedUriSans: ['spiffe://example.org/*'] }, ['spiffe://example.org/web'])).not.toThrow();
    expect(() => checkUriSans({ allowedUriSans: ['spiffe://example.org/*'] }, ['spiffe://evil.org/web'])).toThrow(/not allowed/);
    expect(() => checkUriSans({ allowedUriSans: [] }, ['https://x'])).toThrow(/not allowed/);
    expect(() => checkUriSans({ allowedUriSans: ['*'] }, ['not a uri'])).toThrow(/not a valid URI/);
  });
  it('other SANs follow allowed_other_sans, with * for any value and a lone * for anything', () => {
    const sans = parseOtherSans(['1.3.6.1.4.1.311.20.2.3;UTF8:dev@example.com']);
    expect(() => checkOtherSans({ allowedOtherSans: ['1.3.6.1.4.1.311.20.2.3;UTF8:*'] }, sans)).not.toThrow();
    expect(() => checkOtherSans({ allowedOtherSans: ['*'] }, sans)).not.toThrow();
    expect(() => checkOtherSans({ allowedOtherSans: ['1.3.6.1.4.1.311.20.2.3;UTF8:ops@*'] }, sans)).toThrow(/does not match/);
    expect(() => checkOtherSans({ allowedOtherSans: [] }, sans)).toThrow(/does not match/);
    expect(() => parseOtherSans(['1.2.3;BMP:x'])).toThrow(/expected <oid>;UTF8:<value>/);
  });
  it('allowed_serial_numbers: empty forbids custom serial numbers, globs allow', () => {
    expect(() => checkSerialNumber({ allowedSerialNumbers: [] }, 'abc')).toThrow(/not allowed/);
    expect(() => checkSerialNumber({ allowedSerialNumbers: ['dev-*'] }, 'dev-7')).not.toThrow();
    expect(() => checkSerialNumber({ allowedSerialNumbers: [] }, '')).not.toThrow();
  });
  it('globs are shell-style with * only', () => {
    expect(globMatch('a*c', 'abbbc')).toBe(true);
    expect(globMatch('a.c', 'abc')).toBe(false);
  });
});
