/**
 * The catalog's settings, from the `catalog` section of infra/mounts.json (deployed as code):
 * ACLs on or off, the default policy, the default token, WAN address translation, the
 * datacenter name. `CATALOG_DEFAULT_TOKEN` in the environment overrides the file's token, so a
 * deployment need not keep it in the repository.
 *
 * Closed by default (contract section 9, and the reference catalog's production guidance):
 * ACLs on with default deny unless the settings say otherwise; an open catalog is an explicit
 * `"acl": {"enabled": false}`. The section's `local` entry replaces these settings only where
 * the caller asks for it by name, `{ overlay: 'local' }`: the one-process local server
 * (`npm start`, loopback; lib/local/service.ts) does, nothing else. Where the code runs (Lambda,
 * a container, a test runner) decides nothing, so a bundle run anywhere is closed.
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

/** Which settings of the file apply: the deployed ones (the default), or the local server's overlay. */
export interface CatalogSettingsOptions {
  /** `local`: the section's `local` entry laid over the deployed settings (the local server only). */
  overlay?: 'local';
}

/** The file's entry in force: the deployed settings, with the `local` entry over them only when asked for. */
export function catalogEntry(section: CatalogSection = {}, options: CatalogSettingsOptions = {}): CatalogEntry {
  const { local, ...deployed } = section;
  if (options.overlay !== 'local' || !local) return deployed;
  return { ...deployed, ...local, acl: local.acl ?? deployed.acl };
}

/** The settings in force (closed, as deployed, unless `options` asks for the local overlay). */
export function catalogSettings(options: CatalogSettingsOptions = {}, env: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return parseCatalogSettings(catalogEntry((mountsFile as { catalog?: CatalogSection }).catalog, options), env);
}
