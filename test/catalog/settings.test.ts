/** Table tests: the catalog settings, parsed and refused. */
import { describe, expect, it } from 'vitest';
import { parseCatalogSettings } from '../../lib/catalog/settings';

describe('settings', () => {
  it('defaults to ACLs on, deny, dc1, no translation; ACLs off (then allow) only when asked', () => {
    expect(parseCatalogSettings({}, {})).toEqual({ aclEnabled: true, defaultPolicy: 'deny', translateWanAddrs: false, datacenter: 'dc1' });
    expect(parseCatalogSettings({ acl: { enabled: false } }, {})).toMatchObject({ aclEnabled: false, defaultPolicy: 'allow' });
  });
  it('reads the file and lets CATALOG_DEFAULT_TOKEN override its token', () => {
    const s = parseCatalogSettings(
      { acl: { enabled: true, default_policy: 'deny', tokens: { default: 'from-file' } }, translate_wan_addrs: true, datacenter: 'eu-1' },
      { CATALOG_DEFAULT_TOKEN: 'from-env' },
    );
    expect(s).toEqual({ aclEnabled: true, defaultPolicy: 'deny', defaultToken: 'from-env', translateWanAddrs: true, datacenter: 'eu-1' });
  });
  it('refuses an unknown default policy or datacenter name', () => {
    expect(() => parseCatalogSettings({ acl: { default_policy: 'maybe' } }, {})).toThrow('allow or deny');
    expect(() => parseCatalogSettings({ datacenter: 'a/b' }, {})).toThrow('not a name');
  });
});
