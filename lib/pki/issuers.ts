/**
 * The mount's issuers as a set: adding one (a generated CA, an imported certificate, matched to
 * the key the mount holds for it), the chains between them, the default issuer, and the
 * rules on names. OpenBao's issuer model: an issuer is a CA certificate the mount serves, with a
 * key when the mount holds one; a reference names it by id, by name, or as `default`.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInput } from '../domain-errors';
import { issuerRecord } from './migrations';
import { parseCertificate, type ParsedCert } from './parse';
import { onePem, toPem } from './pem';
import type { PkiRepository } from './repository';
import { colonSerial } from './serial';
import type { IssuerRecord, KeyRecord } from './storage';

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** An issuer or key name: letters, digits, `_ . -`; not `default` in any case (OpenBao), and not an id's shape. */
export function checkObjectName(name: string, what: 'issuer' | 'key'): string {
  if (name === '') return '';
  if (name.toLowerCase() === 'default' || !NAME.test(name) || /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(name)) {
    throw new InvalidInput(
      `invalid ${what} name ${JSON.stringify(name.slice(0, 64))}: 1 to 128 of letters, digits, _ . - (not "default", not an id)`,
    );
  }
  return name;
}

/** Refuses a name another issuer of the mount already has. */
export async function checkIssuerNameFree(repo: PkiRepository, name: string, self = ''): Promise<void> {
  if (name && (await repo.issuers()).some((i) => i.name === name && i.id !== self)) {
    throw new InvalidInput(`issuer name already in use: ${name}`);
  }
}

const certOf = (i: IssuerRecord): ParsedCert => parseCertificate(onePem(i.certificate, ['CERTIFICATE'], 'an issuer certificate'));

/** Whether `parent` signed `child`: names match and, where both say, key identifiers. */
function signedBy(child: ParsedCert, parent: ParsedCert): boolean {
  if (!child.issuerDer.equals(parent.subjectDer)) return false;
  return !child.authorityKeyId || !parent.subjectKeyId || child.authorityKeyId.equals(parent.subjectKeyId);
}

const selfSigned = (c: ParsedCert) => signedBy(c, c);

/** The chain above an issuer, nearest first, from its manual chain or the mount's issuers. */
export function chainOf(issuer: IssuerRecord, all: IssuerRecord[]): string[] {
  if (issuer.manualChain.length) {
    return issuer.manualChain.filter((id) => id !== issuer.id).flatMap((id) => all.filter((i) => i.id === id).map((i) => i.certificate));
  }
  const parsed = all.map((i) => ({ record: i, cert: certOf(i) }));
  const out: string[] = [];
  let at = parsed.find((p) => p.record.id === issuer.id)!;
  const seen = new Set([issuer.id]);
  while (!selfSigned(at.cert)) {
    const parent =
      parsed.find((p) => !seen.has(p.record.id) && signedBy(at.cert, p.cert) && selfSigned(p.cert)) ??
      parsed.find((p) => !seen.has(p.record.id) && signedBy(at.cert, p.cert));
    if (!parent) break;
    out.push(parent.record.certificate);
    seen.add(parent.record.id);
    at = parent;
  }
  return out;
}

/** Recomputes every issuer's built chain (after one was added, changed or removed). */
export async function rebuildChains(repo: PkiRepository): Promise<void> {
  const all = await repo.issuers();
  for (const i of all) {
    const caChain = chainOf(i, all);
    if (JSON.stringify(caChain) !== JSON.stringify(i.caChain)) await repo.putIssuer({ ...i, caChain });
  }
}

/**
 * After an issuer was made (root/generate, a signed intermediate): it becomes the default when
 * there is none, or when the default follows the latest. A conditional write: of concurrent
 * additions to a mount with no default, exactly one becomes it.
 */
export async function adoptAsDefault(repo: PkiRepository, id: string): Promise<void> {
  await repo.updateIssuersConfig((c) => (!c.default || c.defaultFollowsLatestIssuer ? { ...c, default: id } : undefined));
}

export const AMBIGUOUS_DEFAULT =
  'Default issuer left unchanged: more than one imported issuer has its key in this mount, so none was chosen as the latest.';

/**
 * After an import, much as OpenBao chooses: with no default, the first new issuer with a key
 * (else the first new one) becomes it; when the
 * default follows the latest issuer, the one new issuer with a key does (with several, the default
 * stays, with a warning; keyless certificates, such as the root above an intermediate, never
 * displace it). Returns the warnings.
 */
export async function adoptImported(repo: PkiRepository, created: IssuerRecord[]): Promise<string[]> {
  if (!created.length) return [];
  const withKeys = created.filter((i) => i.keyId);
  let ambiguous = false;
  await repo.updateIssuersConfig((c) => {
    ambiguous = false;
    if (!c.default) return { ...c, default: (withKeys[0] ?? created[0])!.id };
    if (!c.defaultFollowsLatestIssuer || !withKeys.length) return undefined;
    if (withKeys.length > 1) {
      ambiguous = true;
      return undefined;
    }
    return { ...c, default: withKeys[0]!.id };
  });
  return ambiguous ? [AMBIGUOUS_DEFAULT] : [];
}

/** A key new to the mount: the issuers whose certificate holds its public key, keyless until now, sign with it. */
export async function linkKeylessIssuers(repo: PkiRepository, key: KeyRecord): Promise<void> {
  for (const i of await repo.issuers()) {
    if (!i.keyId && certOf(i).spki.toString('base64') === key.spki) await repo.putIssuer({ ...i, keyId: key.id });
  }
}

export interface Added {
  issuer: IssuerRecord;
  /** False when the mount already had this certificate as an issuer. */
  created: boolean;
}

/**
 * Adds a CA certificate as an issuer (or finds the one the mount has for it), linked to the
 * key the mount holds for its public key, if any. Certificates that are not CAs are refused.
 */
export async function addIssuer(repo: PkiRepository, cert: ParsedCert, now: number, name = ''): Promise<Added> {
  if (!cert.isCa) throw new InvalidInput('the certificate is not a CA certificate (basic constraints CA:TRUE missing)');
  const pem = toPem('CERTIFICATE', cert.der);
  const existing = (await repo.issuers()).find((i) => certOf(i).der.equals(cert.der));
  if (existing) return { issuer: existing, created: false };
  await checkIssuerNameFree(repo, name);
  const key = await repo.keyBySpki(cert.spki.toString('base64'));
  const issuer = issuerRecord({
    id: randomUUID(),
    name,
    certificate: pem,
    keyId: key?.id ?? '',
    caChain: [],
    serial: colonSerial(cert.serial),
    createdAt: now,
  });
  await repo.putIssuer(issuer);
  return { issuer, created: true };
}
