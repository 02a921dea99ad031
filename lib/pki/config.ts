/** Mount configuration records: config/urls, config/crl, config/auto-tidy, config/cluster, config/acme (stored by pki-store.ts). */

export type UrlsConfig = {
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  ocspServers: string[];
  /** `{{issuer_id}}` and `{{cluster_path}}` filled per issuer (urls.ts); absent (a record of before): false. */
  enableTemplating?: boolean;
};

export type CrlConfig = {
  /** Seconds a CRL is valid. */
  expiry: number;
  disable: boolean;
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
export const DEFAULT_CRL: CrlConfig = { expiry: 72 * 3600, disable: false };
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
