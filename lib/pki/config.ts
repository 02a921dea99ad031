/** Mount configuration records: config/urls, config/crl, config/auto-tidy (stored by pki-store.ts). */

export type UrlsConfig = {
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  ocspServers: string[];
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
  lastRun?: number;
};

/** Each record by its name (`config/<name>`). Types, not interfaces: the store takes them as JSON. */
export type ConfigRecords = { urls: UrlsConfig; crl: CrlConfig; 'auto-tidy': AutoTidyConfig };
export type ConfigName = keyof ConfigRecords;

export const DEFAULT_URLS: UrlsConfig = { issuingCertificates: [], crlDistributionPoints: [], ocspServers: [] };
export const DEFAULT_CRL: CrlConfig = { expiry: 72 * 3600, disable: false };
export const DEFAULT_AUTO_TIDY: AutoTidyConfig = {
  enabled: false,
  intervalDuration: 12 * 3600,
  tidyCertStore: false,
  tidyRevokedCerts: false,
  safetyBuffer: 72 * 3600,
};
export const CONFIG_DEFAULTS: ConfigRecords = { urls: DEFAULT_URLS, crl: DEFAULT_CRL, 'auto-tidy': DEFAULT_AUTO_TIDY };
