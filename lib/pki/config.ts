/** Mount configuration records: config/urls, config/crl, config/auto-tidy. */
import type { Json, Partition } from '../store/store';

export interface UrlsConfig {
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  ocspServers: string[];
}

export interface CrlConfig {
  /** Seconds a CRL is valid. */
  expiry: number;
  disable: boolean;
}

export interface AutoTidyConfig {
  enabled: boolean;
  /** Seconds between scheduled tidies. */
  intervalDuration: number;
  tidyCertStore: boolean;
  tidyRevokedCerts: boolean;
  safetyBuffer: number;
  lastRun?: number;
}

export const DEFAULT_URLS: UrlsConfig = { issuingCertificates: [], crlDistributionPoints: [], ocspServers: [] };
export const DEFAULT_CRL: CrlConfig = { expiry: 72 * 3600, disable: false };
export const DEFAULT_AUTO_TIDY: AutoTidyConfig = { enabled: false, intervalDuration: 12 * 3600, tidyCertStore: false, tidyRevokedCerts: false, safetyBuffer: 72 * 3600 };

export async function readConfig<T extends object>(part: Partition, name: 'urls' | 'crl' | 'auto-tidy', fallback: T): Promise<T> {
  const item = await part.get<T>(`config/${name}`);
  return { ...fallback, ...(item?.value ?? {}) };
}

export async function writeConfig(part: Partition, name: 'urls' | 'crl' | 'auto-tidy', value: object): Promise<void> {
  await part.put(`config/${name}`, value as unknown as Json);
}
