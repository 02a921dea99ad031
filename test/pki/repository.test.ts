/** lib/pki/pki-store.ts: roles and config records of a PKI mount, on a real store. */
import { beforeAll, describe, expect, it } from 'vitest';
import { mountPartition } from '../../lib/mount-partition';
import { DEFAULT_CRL, DEFAULT_URLS } from '../../lib/pki/config';
import { PkiRepository } from '../../lib/pki/repository';
import { normalizeRole, type Role } from '../../lib/pki/role';
import type { Store } from '../../lib/store/store';
import { createTestStore } from '../helpers/store';

let store: Store;
beforeAll(async () => {
  store = (await createTestStore()).store;
});

const role = (ttl: number): Role =>
  normalizeRole(
    {
      ttl,
      maxTtl: 0,
      allowLocalhost: true,
      allowedDomains: ['example.com'],
      allowedDomainsTemplate: false,
      allowBareDomains: false,
      allowSubdomains: true,
      allowGlobDomains: false,
      allowWildcardCertificates: true,
      allowAnyName: false,
      enforceHostnames: true,
      allowIpSans: true,
      allowedUriSans: [],
      allowedUriSansTemplate: false,
      allowedOtherSans: [],
      allowedSerialNumbers: [],
      serverFlag: true,
      clientFlag: true,
      codeSigningFlag: false,
      emailProtectionFlag: false,
      keyType: 'ec',
      keyBits: 0,
      signatureBits: 0,
      keyUsage: ['DigitalSignature'],
      extKeyUsage: [],
      extKeyUsageOids: [],
      useCsrCommonName: true,
      useCsrSans: true,
      ou: [],
      organization: [],
      country: [],
      locality: [],
      province: [],
      streetAddress: [],
      postalCode: [],
      generateLease: false,
      noStore: false,
      requireCn: true,
      policyIdentifiers: [],
      basicConstraintsValidForNonCa: false,
      notBeforeDuration: 30,
      notAfter: '',
    },
    86_400,
  );

describe('PkiRepository', () => {
  it('reads a role written through it at once, also through the cache', async () => {
    const s = new PkiRepository({ store, now: Date.now }, mountPartition({ store }, 'pki', 'roles'));
    expect(await s.cachedRole('web')).toBeUndefined();
    await s.putRole('web', role(60));
    expect((await s.cachedRole('web'))?.ttl).toBe(60);
    await s.putRole('web', role(120));
    expect((await s.cachedRole('web'))?.ttl).toBe(120);
    expect(await s.hasRole('web')).toBe(true);
    expect(await s.roleNames()).toEqual(['web']);
    await s.deleteRole('web');
    expect(await s.cachedRole('web')).toBeUndefined();
  });

  it('answers a config record with its defaults under what is stored', async () => {
    const s = new PkiRepository({ store, now: Date.now }, mountPartition({ store }, 'pki', 'config'));
    expect(await s.config('crl')).toEqual(DEFAULT_CRL);
    await s.writeConfig('crl', { ...DEFAULT_CRL, expiry: 3600, disable: true });
    expect(await s.config('crl')).toEqual({ ...DEFAULT_CRL, expiry: 3600, disable: true });
    // A record of an earlier release, without the OCSP and rebuild settings, reads with their defaults.
    await s.part.put('config/crl', { expiry: 7200, disable: false });
    expect(await s.config('crl')).toEqual({ ...DEFAULT_CRL, expiry: 7200 });
    expect(await s.cachedConfig('urls')).toEqual(DEFAULT_URLS);
    await s.writeConfig('urls', { ...DEFAULT_URLS, ocspServers: ['http://ocsp.example.com'] });
    expect((await s.cachedConfig('urls')).ocspServers).toEqual(['http://ocsp.example.com']);
  });
});
