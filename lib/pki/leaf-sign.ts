/**
 * The signing step that issue, sign and sign-verbatim share (leaf.ts): a leaf certificate built
 * from its parts and signed by the mount's CA, then stored and answered with its chain.
 */
import type { Deps } from '../deps';
import { signatureAlgorithm, type KeyType } from '../keys/signer';
import type { Partition } from '../store/store';
import type { CertOutput } from './cert-output';
import { buildCertificate } from './der/certificate';
import type { Issuer } from './issuer';
import type { IssuedKey } from './public-key';
import { altNamesOf, type Names } from './request-names';
import type { Role } from './role';
import { randomSerial } from './serial';
import { leafExtensions, withRequested, type RequestedExtension } from './template';
import { resolveNotAfter } from './ttl';
import { aiaUrls } from './urls';
import { PkiRepository } from './repository';

export interface LeafResult extends CertOutput {
  warnings: string[];
  stored: boolean;
}

export interface MountLimits {
  defaultLeaseTtl: number;
  maxLeaseTtl: number;
}

/** The certificate's NotAfter (and warnings) for the moment it is signed. */
export type Validity = (now: number) => { notAfter: number; warnings: string[] };

export interface Build {
  issuer: Issuer;
  spki: Buffer;
  keyType: KeyType;
  subject: Buffer;
  emptySubject: boolean;
  names: Names;
  validity: Validity;
  notBeforeDuration: number;
  keyUsage: string[];
  extKeyUsage: string[];
  extKeyUsageOids: string[];
  policyIdentifiers: string[];
  basicConstraintsValidForNonCa: boolean;
  signatureBits: number;
  /** Extensions copied from the CSR (sign-verbatim only). */
  requestedExtensions: RequestedExtension[];
}

export interface Built {
  der: Buffer;
  serial: Buffer;
  notAfter: number;
  warnings: string[];
}

/** Signs the certificate; NotBefore and NotAfter come from one `now`, after any key generation. */
export async function buildAndSign(deps: Deps, part: Partition, b: Build): Promise<Built> {
  const urls = await aiaUrls(new PkiRepository(deps, part), b.issuer.record);
  const serial = randomSerial();
  const now = deps.now();
  const { notAfter, warnings } = b.validity(now);
  const der = await buildCertificate(
    {
      serial,
      issuer: b.issuer.cert.subjectDer,
      subject: b.subject,
      notBefore: now - b.notBeforeDuration * 1000,
      notAfter,
      spki: b.spki,
      extensions: withRequested(
        leafExtensions({
          spki: b.spki,
          keyType: b.keyType,
          issuerKeyId: b.issuer.cert.subjectKeyId,
          altNames: altNamesOf(b.names),
          emptySubject: b.emptySubject,
          keyUsage: b.keyUsage,
          extKeyUsage: b.extKeyUsage,
          extKeyUsageOids: b.extKeyUsageOids,
          policyIdentifiers: b.policyIdentifiers,
          basicConstraintsValidForNonCa: b.basicConstraintsValidForNonCa,
          urls,
        }),
        b.requestedExtensions,
      ),
    },
    b.issuer.signer,
    signatureAlgorithm(b.issuer.signer, b.signatureBits),
  );
  return { der, serial, notAfter, warnings };
}

function chainOf(issuer: Issuer): string[] {
  return [issuer.record.certificate, ...issuer.record.caChain];
}

/** Stores the certificate (unless no_store) and answers it with its chain, and the key when one was made here. */
export async function finish(
  deps: Deps,
  part: Partition,
  issuer: Issuer,
  built: Built,
  noStore: boolean,
  key?: IssuedKey,
  privateKeyFormat?: string,
): Promise<LeafResult> {
  if (!noStore) await new PkiRepository(deps, part).storeCertificate(built.serial, built.der, built.notAfter, issuer.record.id);
  return {
    certificate: built.der,
    serial: built.serial,
    notAfter: built.notAfter,
    issuingCa: issuer.record.certificate,
    caChain: chainOf(issuer),
    ...(key ? { privateKey: key, privateKeyFormat: privateKeyFormat ?? 'der' } : {}),
    warnings: built.warnings,
    stored: !noStore,
  };
}

/** The request's validity under the role and mount; checked once at once, so a bad ttl costs no key. */
export function validityFor(
  deps: Deps,
  role: Pick<Role, 'ttl' | 'maxTtl' | 'notAfter'>,
  req: { ttl?: number | undefined; notAfter?: string | undefined },
  mount: MountLimits,
  issuer: Issuer,
): Validity {
  const validity: Validity = (now) =>
    resolveNotAfter(
      now,
      { ttl: req.ttl, notAfter: req.notAfter, roleNotAfter: role.notAfter || undefined },
      {
        roleTtl: role.ttl,
        roleMaxTtl: role.maxTtl,
        mountDefaultTtl: mount.defaultLeaseTtl,
        mountMaxTtl: mount.maxLeaseTtl,
        caNotAfter: issuer.cert.notAfter,
        pastCa: issuer.record.leafNotAfterBehavior,
      },
    );
  validity(deps.now());
  return validity;
}
