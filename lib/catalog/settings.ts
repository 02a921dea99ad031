/**
 * The catalog's settings, from the `catalog` section of infra/mounts.json (deployed as code):
 * ACLs on or off, the default policy, the default token, WAN address translation, the
 * datacenter name. `CATALOG_DEFAULT_TOKEN` in the environment overrides the file's token, so a
 * deployment need not keep it in the repository.
 */
import mountsFile from '../../infra/mounts.json';
import type { CatalogSettings } from '../config';

export interface CatalogConfig extends CatalogSettings {
  datacenter: string;
}

interface CatalogEntry {
  acl?: { enabled?: boolean; default_policy?: string; tokens?: { default?: string } };
  translate_wan_addrs?: boolean;
  datacenter?: string;
}

export function parseCatalogSettings(entry: CatalogEntry = {}, env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  const policy = entry.acl?.default_policy ?? 'allow';
  if (policy !== 'allow' && policy !== 'deny') throw new Error(`catalog acl.default_policy must be allow or deny, not ${JSON.stringify(policy)}`);
  const dc = entry.datacenter ?? 'dc1';
  if (!/^[a-z0-9_-]{1,64}$/i.test(dc)) throw new Error(`catalog datacenter ${JSON.stringify(dc)} is not a name`);
  const token = env.CATALOG_DEFAULT_TOKEN || entry.acl?.tokens?.default;
  return {
    aclEnabled: entry.acl?.enabled === true,
    defaultPolicy: policy,
    ...(token ? { defaultToken: token } : {}),
    translateWanAddrs: entry.translate_wan_addrs === true,
    datacenter: dc,
  };
}

/** The deployed settings, read once per process. */
export function catalogSettings(): CatalogConfig {
  return parseCatalogSettings((mountsFile as { catalog?: CatalogEntry }).catalog);
}
