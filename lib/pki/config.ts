/** Mount configuration records: config/urls, config/crl, config/auto-tidy, config/cluster, config/acme (stored by repository.ts). */
import { InvalidInput } from '../domain-errors';

export type UrlsConfig = {
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  ocspServers: string[];
  /** Where delta CRLs are (Freshest CRL extension of complete CRLs and certificates); absent (a record of before): none. */
  deltaCrlDistributionPoints?: string[];
  /** `{{issuer_id}}` and `{{cluster_path}}` filled per issuer (urls.ts); absent (a record of before): false. */
  enableTemplating?: boolean;
};

export type CrlConfig = {
  /** Seconds a CRL is valid. */
  expiry: number;
  disable: boolean;
  /** The OCSP responder answers `unauthorized` when true. */
  ocspDisable: boolean;
  /** Seconds an OCSP answer is valid (its nextUpdate); 0: no nextUpdate. */
  ocspExpiry: number;
  /** Complete CRLs are rebuilt by schedule (when within the grace period of their nextUpdate), not on each revocation. */
  autoRebuild: boolean;
  /** Seconds before a complete CRL's nextUpdate at which the schedule rebuilds it. */
  autoRebuildGracePeriod: number;
  /** Delta CRLs (RFC 5280 5.2.4) beside the complete one; needs autoRebuild. */
  enableDelta: boolean;
  /** Seconds between scheduled delta CRL rebuilds. */
  deltaRebuildInterval: number;
};

export type AutoTidyConfig = {
  enabled: boolean;
  /** Seconds between scheduled tidies. */
  intervalDuration: number;
  tidyCertStore: boolean;
  tidyRevokedCerts: boolean;
  safetyBuffer: number;
  tidyAcme: boolean;
  acmeAccountSafetyBuffer: number;
  tidyExpiredIssuers: boolean;
  /** Seconds past an issuer's NotAfter before tidy removes it. */
  issuerSafetyBuffer: number;
  lastRun?: number;
};

/** config/cluster: the mount's external URL (`path`, e.g. https://<api>/v1/pki), which ACME's URLs start with. */
export type ClusterConfig = { path: string };

export type EabPolicy = 'not-required' | 'new-account-required' | 'always-required';

/** config/acme, as the reference server's. */
export type AcmeConfig = {
  enabled: boolean;
  allowedIssuers: string[];
  allowedRoles: string[];
  allowRoleExtKeyUsage: boolean;
  /** `sign-verbatim`, `role:<name>` or `forbid`. */
  defaultDirectoryPolicy: string;
  eabPolicy: EabPolicy;
  /** `ip` or `ip:port` (`[v6]:port`); empty: the system resolver. */
  dnsResolver: string;
  /** Seconds; certificates issued through ACME live at most this long. */
  maxTtl: number;
};

/** Each record by its name (`config/<name>`). Types, not interfaces: the store takes them as JSON. */
export type ConfigRecords = { urls: UrlsConfig; crl: CrlConfig; 'auto-tidy': AutoTidyConfig; cluster: ClusterConfig; acme: AcmeConfig };
export type ConfigName = keyof ConfigRecords;

export const DEFAULT_URLS: UrlsConfig = { issuingCertificates: [], crlDistributionPoints: [], ocspServers: [] };
export const DEFAULT_CRL: CrlConfig = {
  expiry: 72 * 3600,
  disable: false,
  ocspDisable: false,
  ocspExpiry: 3600,
  autoRebuild: false,
  autoRebuildGracePeriod: 12 * 3600,
  enableDelta: false,
  deltaRebuildInterval: 15 * 60,
};

/** A config/crl record as written: the rules OpenBao holds it to (its words where it has them). */
export function checkCrlConfig(c: CrlConfig): CrlConfig {
  if (c.expiry < 1) throw new InvalidInput('expiry must be at least 1s');
  if (c.ocspExpiry < 0) throw new InvalidInput(`ocsp_expiry must be greater than or equal to 0 got: ${c.ocspExpiry}s`);
  if (c.autoRebuild && c.autoRebuildGracePeriod >= c.expiry)
    throw new InvalidInput(
      `CRL auto-rebuilding grace period (${c.autoRebuildGracePeriod}s) must be strictly shorter than CRL expiry (${c.expiry}s) value when auto-rebuilding of CRLs is enabled`,
    );
  if (c.enableDelta && c.deltaRebuildInterval >= c.expiry)
    throw new InvalidInput(
      `CRL delta rebuild window (${c.deltaRebuildInterval}s) must be strictly shorter than CRL expiry (${c.expiry}s) value when delta CRLs are enabled`,
    );
  if (c.enableDelta && !c.autoRebuild)
    throw new InvalidInput('Delta CRLs cannot be enabled when auto rebuilding is disabled as the complete CRL is always regenerated!');
  if (c.deltaRebuildInterval < 1 || c.autoRebuildGracePeriod < 1)
    throw new InvalidInput('auto_rebuild_grace_period and delta_rebuild_interval must be at least 1s');
  return c;
}
export const DEFAULT_AUTO_TIDY: AutoTidyConfig = {
  enabled: false,
  intervalDuration: 12 * 3600,
  tidyCertStore: false,
  tidyRevokedCerts: false,
  safetyBuffer: 72 * 3600,
  tidyAcme: false,
  acmeAccountSafetyBuffer: 30 * 24 * 3600,
  tidyExpiredIssuers: false,
  issuerSafetyBuffer: 365 * 24 * 3600,
};
export const DEFAULT_CLUSTER: ClusterConfig = { path: '' };
export const DEFAULT_ACME: AcmeConfig = {
  enabled: false,
  allowedIssuers: ['*'],
  allowedRoles: ['*'],
  allowRoleExtKeyUsage: false,
  defaultDirectoryPolicy: 'sign-verbatim',
  eabPolicy: 'not-required',
  dnsResolver: '',
  maxTtl: 90 * 24 * 3600,
};
export const CONFIG_DEFAULTS: ConfigRecords = {
  urls: DEFAULT_URLS,
  crl: DEFAULT_CRL,
  'auto-tidy': DEFAULT_AUTO_TIDY,
  cluster: DEFAULT_CLUSTER,
  acme: DEFAULT_ACME,
};
