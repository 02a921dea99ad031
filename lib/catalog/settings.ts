/**
 * The catalog's settings, from the `catalog` section of infra/mounts.json (deployed as code):
 * ACLs on or off, the default policy, the default token, WAN address translation, the
 * datacenter name. `CATALOG_DEFAULT_TOKEN` in the environment overrides the file's token, so a
 * deployment need not keep it in the repository.
 *
 * Closed by default (contract section 9, and the reference catalog's production guidance):
 * ACLs on with default deny unless the settings say otherwise; an open catalog is an explicit
 * `"acl": {"enabled": false}`. The section's `local` entry replaces these settings for the
 * one-process local server only (`npm start`, loopback), never on Lambda.
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

interface CatalogSection extends CatalogEntry {
  /** Settings laid over the deployed ones for the local server. */
  local?: CatalogEntry;
}

export function parseCatalogSettings(entry: CatalogEntry = {}, env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  const enabled = entry.acl?.enabled !== false;
  // With ACLs off nothing is checked, and the reference then reports "allow".
  const policy = entry.acl?.default_policy ?? (enabled ? 'deny' : 'allow');
  if (policy !== 'allow' && policy !== 'deny')
    throw new Error(`catalog acl.default_policy must be allow or deny, not ${JSON.stringify(policy)}`);
  if (entry.acl?.enabled !== undefined && typeof entry.acl.enabled !== 'boolean')
    throw new Error('catalog acl.enabled must be true or false');
  const dc = entry.datacenter ?? 'dc1';
  if (!/^[a-z0-9_-]{1,64}$/i.test(dc)) throw new Error(`catalog datacenter ${JSON.stringify(dc)} is not a name`);
  const token = env.CATALOG_DEFAULT_TOKEN || entry.acl?.tokens?.default;
  return {
    aclEnabled: enabled,
    defaultPolicy: policy,
    ...(token ? { defaultToken: token } : {}),
    translateWanAddrs: entry.translate_wan_addrs === true,
    datacenter: dc,
  };
}

/** The file's settings for where this process runs: deployed (on Lambda), or the local server. */
export function catalogEntry(section: CatalogSection = {}, env: NodeJS.ProcessEnv = process.env): CatalogEntry {
  const { local, ...deployed } = section;
  if (env.AWS_LAMBDA_FUNCTION_NAME || !local) return deployed;
  return { ...deployed, ...local, acl: local.acl ?? deployed.acl };
}

/** The settings in force, read once per process. */
export function catalogSettings(env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return parseCatalogSettings(catalogEntry((mountsFile as { catalog?: CatalogSection }).catalog, env), env);
}
