/**
 * Bringing CAs into a mount: a PEM bundle of certificates and at most one private key
 * (issuers/import/bundle, config/ca), certificates alone (issuers/import/cert), and the
 * certificate for a key intermediate/generate made (intermediate/set-signed). Each CA certificate
 * becomes an issuer (or is found as one the mount has), linked to the key the mount holds for it;
 * and deleting every issuer and key (DELETE root).
 */
import { createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import type { Partition } from '../store/store';
import { pkiRepository, sealKey } from './issuer';
import { addIssuer, adoptImported, checkObjectName, linkKeylessIssuers, rebuildChains } from './issuers';
import { parseCertificate, type ParsedCert } from './parse';
import { pemBlocks, toPem } from './pem';
import type { PkiRepository } from './repository';
import type { KeyRecord } from './storage';

export interface Imported {
  importedIssuers: string[];
  importedKeys: string[];
  existingIssuers: string[];
  existingKeys: string[];
  /** Issuer id for each certificate of the bundle, in order. */
  mapping: Record<string, string>;
  warnings: string[];
}

function splitBundle(text: string) {
  const blocks = pemBlocks(text, 'the PEM bundle');
  const certBlocks = blocks.filter((b) => b.label === 'CERTIFICATE');
  const certs = certBlocks.map((b, i) => {
    try {
      return parseCertificate(b.der);
    } catch (e) {
      // In a bundle of several, which one.
      if (certBlocks.length < 2 || !(e instanceof InvalidInput)) throw e;
      throw new InvalidInput(`certificate ${i + 1} of the bundle: ${e.message.replace(/^the certificate: /, '')}`, { cause: e });
    }
  });
  const keys = blocks.filter((b) => b.label.endsWith('PRIVATE KEY'));
  if (blocks.some((b) => b.label !== 'CERTIFICATE' && !b.label.endsWith('PRIVATE KEY')))
    throw new InvalidInput('the PEM bundle may hold only certificates and one private key');
  refuseNonCa(certs);
  return { certs, keys };
}

/**
 * Every certificate must be a CA's, checked before anything is written: OpenBao refuses the
 * whole import ("Refusing to import non-CA certificate") rather than leaving a leaf out, or its
 * private key behind as a key of the mount.
 */
function refuseNonCa(certs: ParsedCert[]): void {
  const at = certs.findIndex((c) => !c.isCa);
  if (at < 0) return;
  const cn = certs[at]!.subject.commonName;
  const which = certs.length > 1 ? `certificate ${at + 1} of the bundle${cn ? ` (CN=${cn.slice(0, 64)})` : ''}` : 'the certificate';
  throw new InvalidInput(`${which} is not a CA certificate (basic constraints CA:TRUE missing)`);
}

function privateKeyOf(label: string, der: Buffer): KeyObject {
  try {
    return createPrivateKey({ key: toPem(label, der), format: 'pem' });
  } catch (e) {
    throw new InvalidInput('the private key could not be parsed (encrypted keys are not supported)', { cause: e });
  }
}

/** A private key as a key record of the mount (the one it has for that public key, or a new one, named `name`). */
export async function importPrivateKey(
  deps: Deps,
  repo: PkiRepository,
  key: KeyObject,
  name = '',
): Promise<{ record: KeyRecord; created: boolean }> {
  // The name is checked first, as OpenBao's getKeyName does, even for a key the mount already has.
  checkObjectName(name, 'key');
  if (name && (await repo.keys()).some((k) => k.name === name)) throw new InvalidInput(`key name already in use: ${name}`);
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const existing = await repo.keyBySpki(spki.toString('base64'));
  if (existing) return { record: existing, created: false };
  const id = randomUUID();
  const parsed = parseCertificateKey(spki);
  const ref = await sealKey(deps, repo.part, key.export({ format: 'der', type: 'pkcs8' }), `key/${id}`);
  const record: KeyRecord = { id, name, type: parsed.keyType, bits: parsed.keyBits, spki: spki.toString('base64'), ref };
  await repo.putKey(record);
  await repo.updateKeysConfig((c) => (c.default ? undefined : { ...c, default: id }));
  await linkKeylessIssuers(repo, record);
  return { record, created: true };
}

function parseCertificateKey(spki: Buffer): { keyType: string; keyBits: number } {
  const k = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const type = k.asymmetricKeyType === 'ed25519' ? 'ed25519' : k.asymmetricKeyType === 'ec' ? 'ec' : 'rsa';
  const details = k.asymmetricKeyDetails;
  const bits = type === 'rsa' ? (details?.modulusLength ?? 0) : type === 'ec' ? curveBits(details?.namedCurve) : 256;
  return { keyType: type, keyBits: bits };
}

const curveBits = (curve: string | undefined) => ({ prime256v1: 256, secp384r1: 384, secp521r1: 521 })[curve ?? ''] ?? 0;

/** Every CA certificate as an issuer; then the default chosen among the new ones (adoptImported). */
async function importCertificates(deps: Deps, repo: PkiRepository, certs: ParsedCert[], out: Imported): Promise<void> {
  if (!certs.length) throw new InvalidInput('no certificate found in the bundle');
  const created = [];
  for (const cert of certs) {
    const added = await addIssuer(repo, cert, deps.now());
    (added.created ? out.importedIssuers : out.existingIssuers).push(added.issuer.id);
    out.mapping[added.issuer.id] = added.issuer.keyId;
    if (added.created) {
      await repo.storeCertificate(cert.serial, cert.der, cert.notAfter, added.issuer.id);
      created.push(added.issuer);
    }
  }
  await rebuildChains(repo);
  out.warnings.push(...(await adoptImported(repo, created)));
}

const emptyImport = (): Imported => ({
  importedIssuers: [],
  importedKeys: [],
  existingIssuers: [],
  existingKeys: [],
  mapping: {},
  warnings: [],
});

/** issuers/import/bundle and config/ca: certificates, and at most one private key. */
export async function importBundle(deps: Deps, part: Partition, text: string, requireKey = false): Promise<Imported> {
  const { certs, keys } = splitBundle(text);
  if (keys.length > 1) throw new InvalidInput('the PEM bundle must hold at most one private key');
  if (requireKey && keys.length !== 1) throw new InvalidInput('the PEM bundle must hold exactly one unencrypted private key');
  const repo = pkiRepository(deps, part);
  const out = emptyImport();
  if (keys[0]) {
    const key = privateKeyOf(keys[0].label, keys[0].der);
    const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
    if (certs.length && !certs.some((c) => c.spki.equals(spki)))
      throw new InvalidInput('no certificate in the bundle matches the private key');
    const { record, created } = await importPrivateKey(deps, repo, key);
    (created ? out.importedKeys : out.existingKeys).push(record.id);
  }
  if (certs.length) await importCertificates(deps, repo, certs, out);
  return out;
}

/** intermediate/set-signed: the certificate for a key the mount holds (from intermediate/generate). */
export async function setSigned(deps: Deps, part: Partition, text: string): Promise<Imported> {
  const { certs, keys } = splitBundle(text);
  if (keys.length) throw new InvalidInput('the certificate field must not contain a private key');
  const repo = pkiRepository(deps, part);
  const first = certs[0];
  if (!first) throw new InvalidInput('no certificate found in the bundle');
  if (!(await repo.keyBySpki(first.spki.toString('base64')))) {
    throw new InvalidInput('the certificate does not match the key generated by intermediate/generate');
  }
  const out = emptyImport();
  await importCertificates(deps, repo, certs, out);
  return out;
}

/** DELETE root: every issuer and key of the mount goes (their certificates stay on record). */
export async function deleteAllIssuers(deps: Deps, part: Partition): Promise<void> {
  const repo = pkiRepository(deps, part);
  for (const id of await repo.issuerIds()) await repo.deleteIssuer(id);
  for (const id of await repo.keyIds()) await repo.deleteKey(id);
  await repo.writeIssuersConfig({ default: '', defaultFollowsLatestIssuer: false });
  await repo.writeKeysConfig({ default: '' });
}
