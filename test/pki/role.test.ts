import { describe, expect, it } from 'vitest';
import { roleForCaller, type Role } from '../../lib/pki/role';
import { checkName } from '../../lib/pki/names';

const base = { allowedDomains: [], allowedDomainsTemplate: false, allowedUriSans: [], allowedUriSansTemplate: false } as unknown as Role;
const who = { mountAccessor: 'auth_jwt_1', mountType: 'jwt', name: 'repo:org/web', metadata: { service: 'web' } };

describe('PKI role identity templates', () => {
  it('fills allowed_domains from the caller, so a workload gets certificates for its own names only', () => {
    const role = {
      ...base,
      allowedDomainsTemplate: true,
      allowBareDomains: true,
      allowedDomains: ['{{identity.entity.aliases.auth_jwt_1.metadata.service}}.svc.example.com'],
    } as Role;
    const mine = roleForCaller(role, who);
    expect(mine.allowedDomains).toEqual(['web.svc.example.com']);
    expect(() => checkName(mine, 'web.svc.example.com')).not.toThrow();
    expect(() => checkName(mine, 'db.svc.example.com')).toThrow(/not allowed/);
    expect(() => checkName(roleForCaller(role, undefined), 'web.svc.example.com')).toThrow(/not allowed/);
  });

  it('leaves a role without templates as it is', () => {
    const role = { ...base, allowedDomains: ['{{x}}'] } as Role;
    expect(roleForCaller(role, who)).toBe(role);
  });
});
