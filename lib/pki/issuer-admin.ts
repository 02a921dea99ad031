/**
 * Managing the mount's issuers and keys one by one, as OpenBao does: reading one with what it
 * is (its chain, key, usage, URLs), updating it (a POST replaces every setting with the given
 * or default values; a PATCH changes only those given), revoking it, deleting it, and the
 * default issuer and key. Domain only: the paths map wire to these.
 */
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import type { Partition } from '../store/store';
import { rebuildAllCrls } from './crl';
import { checkUrls } from './urls';
import { pkiRepository } from './issuer';
import { checkIssuerNameFree, checkObjectName, chainOf, rebuildChains } from './issuers';
import { parseCertificate } from './parse';
import { onePem } from './pem';
import type { PkiRepository } from './repository';
import { serialKey } from './serial';
import {
  expiryIndexSort,
  ISSUER_USAGES,
  REVOKED_INDEX,
  type IssuerRecord,
  type IssuerUsage,
  type KeyRecord,
  type LeafNotAfterBehavior,
  type RevokedRecord,
} from './storage';

/** The settings of an issuer an update may change. */
export interface IssuerSettings {
  name: string;
  leafNotAfterBehavior: LeafNotAfterBehavior;
  usage: IssuerUsage[];
  manualChain: string[];
  revocationSignatureAlgorithm: string;
  issuingCertificates: string[];
  crlDistributionPoints: string[];
  deltaCrlDistributionPoints: string[];
  ocspServers: string[];
  enableAiaUrlTemplating: boolean;
}

export const ISSUER_DEFAULTS: IssuerSettings = {
  name: '',
  leafNotAfterBehavior: 'err',
  usage: [...ISSUER_USAGES],
  manualChain: [],
  revocationSignatureAlgorithm: '',
  issuingCertificates: [],
  crlDistributionPoints: [],
  deltaCrlDistributionPoints: [],
  ocspServers: [],
  enableAiaUrlTemplating: false,
};

const BEHAVIORS: readonly LeafNotAfterBehavior[] = ['err', 'truncate', 'permit'];
/** The CRL signature algorithms an issuer's key can sign with, by key type (RSA: the hash is chosen; EC: its curve's). */
const REVOCATION_ALGORITHMS: Record<string, (bits: number) => string[]> = {
  rsa: () => ['SHA256WithRSA', 'SHA384WithRSA', 'SHA512WithRSA'],
  ec: (bits) => [`ECDSAWithSHA${bits <= 256 ? 256 : bits <= 384 ? 384 : 512}`],
  ed25519: () => ['PureEd25519'],
};

/** revocation_signature_algorithm: empty (by the key), or one the issuer's key signs CRLs with (crl.ts honours it). */
async function checkRevocationAlgorithm(repo: PkiRepository, self: IssuerRecord, alg: string): Promise<void> {
  if (!alg) return;
  const key = self.keyId ? await repo.key(self.keyId) : undefined;
  if (!key) throw new InvalidInput(`revocation_signature_algorithm: issuer ${self.name || self.id} has no key in this mount to sign CRLs`);
  const fits = REVOCATION_ALGORITHMS[key.type]?.(key.bits) ?? [];
  if (!fits.includes(alg))
    throw new InvalidInput(
      `revocation_signature_algorithm ${JSON.stringify(alg.slice(0, 40))} does not fit the issuer's ${key.type} key: use ${fits.join(', ')} or leave it empty`,
    );
}

/** The issuer `ref` names, or a 404 naming the reference. */
export function issuerOf(deps: Deps, part: Partition, ref: string): Promise<IssuerRecord> {
  return pkiRepository(deps, part).resolveIssuer(ref);
}

/** Checks the settings an update gives; returns them with the manual chain as issuer ids. */
async function checkSettings(repo: PkiRepository, self: IssuerRecord, s: IssuerSettings): Promise<IssuerSettings> {
  checkObjectName(s.name, 'issuer');
  await checkIssuerNameFree(repo, s.name, self.id);
  if (!BEHAVIORS.includes(s.leafNotAfterBehavior))
    throw new InvalidInput(`invalid leaf_not_after_behavior ${JSON.stringify(s.leafNotAfterBehavior)}: err, truncate or permit`);
  const unknown = s.usage.find((u) => !(ISSUER_USAGES as readonly string[]).includes(u));
  if (unknown !== undefined) throw new InvalidInput(`invalid usage ${JSON.stringify(unknown)}: ${ISSUER_USAGES.join(', ')}`);
  const usage = [...new Set<IssuerUsage>(['read-only', ...s.usage])];
  if (usage.includes('crl-signing') && !canSignCrls(self))
    throw new InvalidInput('usage crl-signing needs the CRL Sign key usage on the issuer certificate');
  await checkRevocationAlgorithm(repo, self, s.revocationSignatureAlgorithm);
  const t = s.enableAiaUrlTemplating;
  checkUrls('issuing_certificates', s.issuingCertificates, t);
  checkUrls('crl_distribution_points', s.crlDistributionPoints, t);
  checkUrls('ocsp_servers', s.ocspServers, t);
  checkUrls('delta_crl_distribution_points', s.deltaCrlDistributionPoints, t);
  const manualChain = await manualChainIds(repo, self, s.manualChain);
  return { ...s, usage, manualChain };
}

/** Whether the issuer's certificate allows signing CRLs (no key usage extension: it does). */
function canSignCrls(issuer: IssuerRecord): boolean {
  return parseCertificate(onePem(issuer.certificate, ['CERTIFICATE'], 'an issuer certificate')).crlSign !== false;
}

/** manual_chain as issuer ids: the first must be the issuer itself, which `self` names there (as in OpenBao). */
async function manualChainIds(repo: PkiRepository, self: IssuerRecord, refs: string[]): Promise<string[]> {
  if (!refs.length) return [];
  const ids = await Promise.all(refs.map(async (r, i) => (i === 0 && r === 'self' ? self.id : (await repo.resolveIssuer(r)).id)));
  if (ids[0] !== self.id) throw new InvalidInput('the first entry of manual_chain must be the issuer itself');
  return ids;
}

/** An update: `replace` (POST) takes defaults for what is not given; `patch` keeps it. */
export async function updateIssuer(
  deps: Deps,
  part: Partition,
  ref: string,
  given: Partial<IssuerSettings>,
  replace: boolean,
): Promise<IssuerRecord> {
  const repo = pkiRepository(deps, part);
  const current = await repo.resolveIssuer(ref);
  // OpenBao's refusal (and words); a POST that leaves usage out keeps the revoked issuer's usage as it is.
  if (current.revokedAt && given.usage?.includes('issuing-certificates'))
    throw new InvalidInput(
      `issuer ${current.name || current.id} was revoked; unable to modify its usage to include certificate signing again. Reissue this certificate (preferably with a new key) and modify that entry instead.`,
    );
  const base: IssuerSettings = replace ? ISSUER_DEFAULTS : settingsOf(current);
  const s = await checkSettings(repo, current, { ...base, ...given });
  const updated: IssuerRecord = {
    ...current,
    ...s,
    usage: current.revokedAt ? s.usage.filter((u) => u !== 'issuing-certificates') : s.usage,
  };
  updated.caChain = chainOf(
    updated,
    (await repo.issuers()).map((i) => (i.id === updated.id ? updated : i)),
  );
  await repo.putIssuer(updated);
  return updated;
}

export function settingsOf(i: IssuerRecord): IssuerSettings {
  return {
    name: i.name,
    leafNotAfterBehavior: i.leafNotAfterBehavior,
    usage: i.usage,
    manualChain: i.manualChain,
    revocationSignatureAlgorithm: i.revocationSignatureAlgorithm,
    issuingCertificates: i.issuingCertificates,
    crlDistributionPoints: i.crlDistributionPoints,
    deltaCrlDistributionPoints: i.deltaCrlDistributionPoints ?? [],
    ocspServers: i.ocspServers,
    enableAiaUrlTemplating: i.enableAiaUrlTemplating,
  };
}

/** DELETE issuer/<ref>: refused for the default issuer (choose another default first). */
export async function deleteIssuer(deps: Deps, part: Partition, ref: string): Promise<void> {
  const repo = pkiRepository(deps, part);
  const issuer = await repo.resolveIssuer(ref);
  if ((await repo.issuersConfig()).default === issuer.id) {
    throw new InvalidInput(
      `issuer ${issuer.name || issuer.id} is the default issuer: set another default (config/issuers) before deleting it`,
    );
  }
  await repo.deleteIssuer(issuer.id);
  await rebuildChains(repo);
}

/**
 * issuer/<ref>/revoke: the issuer issues nothing more, and the CRL of each issuer of the mount
 * that signed its certificate lists it. Cannot be undone. The default issuer may be revoked, as in
 * OpenBao: `default` then issues nothing (400 naming its usage) until another is made the default.
 */
export async function revokeIssuer(deps: Deps, part: Partition, ref: string): Promise<IssuerRecord> {
  const repo = pkiRepository(deps, part);
  const issuer = await repo.resolveIssuer(ref);
  if (issuer.revokedAt) return issuer;
  const revoked: IssuerRecord = { ...issuer, revokedAt: deps.now(), usage: issuer.usage.filter((u) => u !== 'issuing-certificates') };
  await repo.putIssuer(revoked);
  const cert = parseCertificate(onePem(issuer.certificate, ['CERTIFICATE'], 'the issuer certificate'));
  for (const parent of await parentsOf(repo, issuer)) {
    const record: RevokedRecord = {
      serial: serialKey(cert.serial),
      revokedAt: revoked.revokedAt!,
      notAfter: cert.notAfter,
      issuerId: parent.id,
    };
    await part.put(`revoked/${record.serial}`, record, {
      index: { name: REVOKED_INDEX, sort: expiryIndexSort(record.notAfter, record.serial) },
    });
  }
  await rebuildAllCrls(deps, part).catch(() => undefined);
  return revoked;
}

/** The mount's issuers (other than itself) that signed this issuer's certificate. */
async function parentsOf(repo: PkiRepository, issuer: IssuerRecord): Promise<IssuerRecord[]> {
  const all = await repo.issuers();
  const chainTop = chainOf(issuer, all)[0];
  return all.filter((i) => i.id !== issuer.id && i.certificate === chainTop);
}

/** DELETE key/<ref>: refused while an issuer uses the key; the default is cleared. */
export async function deleteKey(deps: Deps, part: Partition, ref: string): Promise<void> {
  const repo = pkiRepository(deps, part);
  const key = await repo.resolveKey(ref);
  const users = (await repo.issuers()).filter((i) => i.keyId === key.id);
  if (users.length)
    throw new InvalidInput(
      `key ${key.name || key.id} is used by issuer(s) ${users.map((i) => i.name || i.id).join(', ')}: delete them first`,
    );
  await repo.deleteKey(key.id);
  await repo.updateKeysConfig((c) => (c.default === key.id ? { ...c, default: '' } : undefined));
}

/** key/<ref> POST: its name. */
export async function renameKey(deps: Deps, part: Partition, ref: string, name: string): Promise<KeyRecord> {
  const repo = pkiRepository(deps, part);
  const key = await repo.resolveKey(ref);
  checkObjectName(name, 'key');
  if (name && (await repo.keys()).some((k) => k.name === name && k.id !== key.id))
    throw new InvalidInput(`key name already in use: ${name}`);
  const renamed = { ...key, name };
  await repo.putKey(renamed);
  return renamed;
}

/** config/issuers: the default by reference (the issuer must exist and not be revoked). */
export async function setDefaultIssuer(deps: Deps, part: Partition, ref: string, followsLatest: boolean | undefined): Promise<void> {
  const repo = pkiRepository(deps, part);
  const current = await repo.issuersConfig();
  const id = ref ? (await repo.resolveIssuer(ref)).id : current.default;
  await repo.writeIssuersConfig({ default: id, defaultFollowsLatestIssuer: followsLatest ?? current.defaultFollowsLatestIssuer });
}

/** config/keys: the default key by reference. */
export async function setDefaultKey(deps: Deps, part: Partition, ref: string): Promise<void> {
  const repo = pkiRepository(deps, part);
  await repo.writeKeysConfig({ default: (await repo.resolveKey(ref)).id });
}
