/**
 * The AIA and CRL URLs an issuer's certificates carry (authorityInfoAccess caIssuers and OCSP,
 * CRL distribution points): the issuer's own where it has any, else the mount's config/urls.
 *
 * Templating (an issuer's `enable_aia_url_templating`, config/urls `enable_templating`, as in
 * OpenBao) fills `{{issuer_id}}` and `{{cluster_path}}` (config/cluster `path`) per issuer.
 * Untemplated mount-wide URLs name one place for every issuer, the trap of hashicorp/vault#16060
 * (certificates of one issuer pointing to another's CRL): they are taken to be the default
 * issuer's, as the mount's unqualified paths (`crl`, `ca`) are, and another issuer without URLs of
 * its own issues nothing until it has some or config/urls is templated (400 naming both ways).
 */
import { InvalidInput } from '../domain-errors';
import type { UrlsConfig } from './config';
import type { PkiRepository } from './repository';
import type { IssuerRecord } from './storage';

const PLACEHOLDERS = ['{{issuer_id}}', '{{cluster_path}}'];
const SAMPLE_ID = '00000000-0000-0000-0000-000000000000';
const SAMPLE_PATH = 'https://ca.invalid/v1/pki';

/** Checks URLs as written (`field` names them in errors): ASCII, at most 2048 characters, a URL once any template is filled. */
export function checkUrls(field: string, urls: string[], templating: boolean): string[] {
  for (const u of urls) {
    const shown = JSON.stringify(u.slice(0, 80));
    if (u.length > 2048) throw new InvalidInput(`${field}: a URL longer than 2048 characters`);
    if (!/^[\x21-\x7e]+$/.test(u)) throw new InvalidInput(`${field}: invalid URL ${shown} (printable ASCII without spaces only)`);
    const templates = u.match(/\{\{[^{}]*\}\}/g) ?? [];
    if (templates.length && !templating)
      throw new InvalidInput(`${field}: ${shown} holds a template, but templating is off (enable_templating / enable_aia_url_templating)`);
    const unknown = templates.find((t) => !PLACEHOLDERS.includes(t));
    if (unknown !== undefined) throw new InvalidInput(`${field}: unknown template ${unknown}: use {{issuer_id}} or {{cluster_path}}`);
    const sample = u.replaceAll('{{issuer_id}}', SAMPLE_ID).replaceAll('{{cluster_path}}', SAMPLE_PATH);
    if (!URL.canParse(sample) || sample.includes('{') || sample.includes('}')) throw new InvalidInput(`${field}: invalid URL ${shown}`);
  }
  return urls;
}

const anyUrl = (u: UrlsConfig) =>
  u.issuingCertificates.length + u.crlDistributionPoints.length + u.ocspServers.length + (u.deltaCrlDistributionPoints?.length ?? 0) > 0;

/** The URLs the certificates `issuer` signs carry, templates filled. */
export async function aiaUrls(repo: PkiRepository, issuer: IssuerRecord): Promise<UrlsConfig> {
  const own: UrlsConfig = {
    issuingCertificates: issuer.issuingCertificates,
    crlDistributionPoints: issuer.crlDistributionPoints,
    ocspServers: issuer.ocspServers,
    deltaCrlDistributionPoints: issuer.deltaCrlDistributionPoints ?? [],
  };
  if (anyUrl(own)) return issuer.enableAiaUrlTemplating ? fill(repo, own, issuer.id) : own;
  const mount = await repo.cachedConfig('urls');
  if (!anyUrl(mount)) return mount;
  if (mount.enableTemplating) return fill(repo, mount, issuer.id);
  if ((await repo.issuersConfig()).default !== issuer.id)
    throw new InvalidInput(
      `issuer ${issuer.name || issuer.id} is not the default and has no URLs of its own, and config/urls is not templated: ` +
        `its certificates would point to another issuer's CRL and certificate. Set this issuer's URLs (issuer/<ref>), ` +
        `or config/urls with enable_templating=true and {{issuer_id}} (e.g. {{cluster_path}}/issuer/{{issuer_id}}/crl/der)`,
    );
  return mount;
}

async function fill(repo: PkiRepository, urls: UrlsConfig, issuerId: string): Promise<UrlsConfig> {
  const clusterPath = (await repo.cachedConfig('cluster')).path;
  const one = (u: string) => {
    if (u.includes('{{cluster_path}}') && !clusterPath)
      throw new InvalidInput('AIA URL templating uses {{cluster_path}} but config/cluster has no path');
    return u.replaceAll('{{issuer_id}}', issuerId).replaceAll('{{cluster_path}}', clusterPath);
  };
  return {
    issuingCertificates: urls.issuingCertificates.map(one),
    crlDistributionPoints: urls.crlDistributionPoints.map(one),
    ocspServers: urls.ocspServers.map(one),
    deltaCrlDistributionPoints: (urls.deltaCrlDistributionPoints ?? []).map(one),
  };
}

/** The URLs a new self-signed root carries: the mount's untemplated ones (no issuer id exists yet to fill a template with). */
export async function selfSignedUrls(repo: PkiRepository): Promise<UrlsConfig> {
  const mount = await repo.config('urls');
  return mount.enableTemplating
    ? { issuingCertificates: [], crlDistributionPoints: [], ocspServers: [], deltaCrlDistributionPoints: [] }
    : mount;
}
