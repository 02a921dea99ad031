/**
 * CA lifecycle: root generation (a new key and a new issuer), intermediate CSR generation (a new
 * key, or one the mount has), signing intermediates through an issuer. Imports and deletion are
 * ca-import.ts's; the set of issuers (chains, the default) issuers.ts's.
 */
import { countIssued } from './issued-metric';
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { keyIdentifier, signatureAlgorithm, type Signer } from '../keys/signer';
import { generateKey, LocalSigner } from '../keys/signer-local';
import type { Partition } from '../store/store';
import type { CertOutput } from './cert-output';
import { buildCertificate } from './der/certificate';
import { buildCsr } from './der/csr';
import { subjectAltName } from './der/extensions';
import { encodeName, type Subject } from './der/name';
import { keySigner, loadIssuer, pkiRepository, sealKey, type Issuer } from './issuer';
import { adoptAsDefault, checkObjectName } from './issuers';
import { aiaUrls, selfSignedUrls } from './urls';
import { issuerRecord } from './migrations';
import type { PkiRepository } from './repository';
import { checkKeyParams } from './key-params';
import { openManagedSigner, resolveManagedKey } from './managed-keys';
import type { ParsedCsr } from './parse';
import { toPem } from './pem';
import { issuedKeyOf, type IssuedKey } from './public-key';
import { altNamesOf, gatherNames, type NameRequest } from './request-names';
import { colonSerial, randomSerial } from './serial';
import type { IssuerRecord, KeyRecord, KeyRef } from './storage';
import { caExtensions } from './template';
import { resolveNotAfter, type TtlLimits } from './ttl';

export interface KeyChoice {
  type: 'exported' | 'internal' | 'kms' | 'existing';
  /** type existing: the key to reuse (a reference: id, name or default). */
  keyRef?: string | undefined;
  /** A name for a new key. */
  keyName?: string | undefined;
  keyType: string;
  keyBits: number;
  /** Whether key_type / key_bits were given explicitly (refused with kms). */
  keyParamsGiven: boolean;
  managedKeyName?: string | undefined;
  managedKeyId?: string | undefined;
}

export interface CaRequest extends NameRequest {
  subject: Omit<Subject, 'commonName'>;
  ttl?: number | undefined;
  notAfter?: string | undefined;
  maxPathLength: number;
  permittedDnsDomains: string[];
  signatureBits: number;
}

interface NewKey {
  signer: Signer;
  record: KeyRecord;
  exported?: IssuedKey;
}

/** A key for a new CA: made here (sealed in the table), a KMS key, or one the mount already holds. */
export async function newKey(deps: Deps, repo: PkiRepository, k: KeyChoice): Promise<NewKey> {
  if (k.type === 'existing') {
    const record = await repo.resolveKey(k.keyRef ?? 'default');
    return { signer: await keySigner(deps, repo.part, record), record };
  }
  const id = randomUUID();
  const name = checkObjectName(k.keyName ?? '', 'key');
  if (name && (await repo.keys()).some((x) => x.name === name)) throw new InvalidInput(`key name already in use: ${name}`);
  const made = k.type === 'kms' ? await kmsKey(deps, k) : await localKey(deps, repo, k, id);
  const record: KeyRecord = {
    id,
    name,
    type: made.signer.keyType,
    bits: made.signer.keyBits,
    spki: made.signer.spki.toString('base64'),
    ref: made.ref,
  };
  await repo.putKey(record);
  await repo.updateKeysConfig((c) => (c.default ? undefined : { ...c, default: id }));
  return { signer: made.signer, record, ...(made.exported ? { exported: made.exported } : {}) };
}

async function kmsKey(deps: Deps, k: KeyChoice): Promise<{ signer: Signer; ref: KeyRef; exported?: IssuedKey }> {
  if (k.keyParamsGiven) throw new InvalidInput('key_type and key_bits cannot be given with a managed key');
  const mk = resolveManagedKey(k.managedKeyName, k.managedKeyId);
  const signer = await openManagedSigner(mk.keyId, deps.env.region, deps.env.kmsEndpoint);
  return { signer, ref: { kind: 'kms', keyId: mk.keyId, name: mk.name } };
}

async function localKey(
  deps: Deps,
  repo: PkiRepository,
  k: KeyChoice,
  id: string,
): Promise<{ signer: Signer; ref: KeyRef; exported?: IssuedKey }> {
  if (k.keyType === 'any') throw new InvalidInput('key_type "any" cannot be used to generate a key');
  const key = await generateKey(k.keyType as 'rsa', checkKeyParams(k.keyType, k.keyBits));
  const ref = await sealKey(deps, repo.part, key.export({ format: 'der', type: 'pkcs8' }), `key/${id}`);
  return { signer: new LocalSigner(key), ref, ...(k.type === 'exported' ? { exported: issuedKeyOf(key) } : {}) };
}

function caSubject(r: CaRequest): Subject {
  return { ...r.subject, commonName: r.commonName };
}

/** Signs a CA certificate; NotBefore and NotAfter come from one `now`, after the key was made. */
async function caCertificate(
  deps: Deps,
  part: Partition,
  r: CaRequest,
  spki: Buffer,
  subject: Buffer,
  issuer: { subjectDer: Buffer; keyId: Buffer; signer: Signer; record?: IssuerRecord },
  limits: TtlLimits,
  pathLen: number,
) {
  const repo = pkiRepository(deps, part);
  const urls = issuer.record ? await aiaUrls(repo, issuer.record) : await selfSignedUrls(repo);
  const serial = randomSerial();
  const now = deps.now();
  const { notAfter, warnings } = resolveNotAfter(now, r, limits);
  const der = await buildCertificate(
    {
      serial,
      issuer: issuer.subjectDer,
      subject,
      notBefore: now - 30_000,
      notAfter,
      spki,
      extensions: caExtensions({
        spki,
        issuerKeyId: issuer.keyId,
        altNames: altNamesOf(gatherNames(r)),
        maxPathLength: pathLen,
        permittedDnsDomains: r.permittedDnsDomains,
        urls,
      }),
    },
    issuer.signer,
    signatureAlgorithm(issuer.signer, r.signatureBits),
  );
  return { der, serial, notAfter, warnings };
}

export interface NewIssuerNames {
  issuerName?: string | undefined;
}

export type RootOutput = CertOutput & { warnings: string[]; issuerId: string; keyId: string };

/** root/generate/<type> (issuers/generate/root): a new self-signed CA, as a new issuer with its key. */
export async function generateRoot(
  deps: Deps,
  part: Partition,
  r: CaRequest,
  k: KeyChoice,
  maxTtl: number,
  names: NewIssuerNames = {},
): Promise<RootOutput> {
  if (!r.commonName) throw new InvalidInput('the common_name field is required');
  const repo = pkiRepository(deps, part);
  const issuerName = checkObjectName(names.issuerName ?? '', 'issuer');
  if (issuerName && (await repo.issuers()).some((i) => i.name === issuerName))
    throw new InvalidInput(`issuer name already in use: ${issuerName}`);
  const limits = { mountDefaultTtl: 0, mountMaxTtl: maxTtl };
  resolveNotAfter(deps.now(), r, limits); // a bad ttl is refused before a key is made
  const key = await newKey(deps, repo, k);
  const subject = encodeName(caSubject(r));
  const self = { subjectDer: subject, keyId: keyIdentifier(key.signer.spki), signer: key.signer };
  const built = await caCertificate(deps, part, r, key.signer.spki, subject, self, limits, r.maxPathLength);
  const pem = toPem('CERTIFICATE', built.der);
  const id = randomUUID();
  const record = issuerRecord({
    id,
    name: issuerName,
    certificate: pem,
    keyId: key.record.id,
    caChain: [],
    serial: colonSerial(built.serial),
    createdAt: deps.now(),
  });
  await repo.putIssuer(record);
  await repo.storeCertificate(built.serial, built.der, built.notAfter, id);
  await adoptAsDefault(repo, id);
  countIssued(part, id);
  return {
    certificate: built.der,
    serial: built.serial,
    notAfter: built.notAfter,
    issuingCa: pem,
    selfSigned: true,
    ...(key.exported ? { privateKey: key.exported } : {}),
    warnings: built.warnings,
    issuerId: id,
    keyId: key.record.id,
  };
}

/** intermediate/generate/<type>: a key (new, or one the mount holds) and a CSR for it; set-signed later finds the key by its public key. */
export async function generateIntermediate(
  deps: Deps,
  part: Partition,
  r: CaRequest,
  k: KeyChoice,
): Promise<{ csr: Buffer; keyId: string; privateKey?: IssuedKey }> {
  if (!r.commonName) throw new InvalidInput('the common_name field is required');
  const key = await newKey(deps, pkiRepository(deps, part), k);
  const san = subjectAltName(altNamesOf(gatherNames(r)), false);
  const csr = await buildCsr(encodeName(caSubject(r)), key.signer, signatureAlgorithm(key.signer, r.signatureBits), san ? [san] : []);
  return { csr, keyId: key.record.id, ...(key.exported ? { privateKey: key.exported } : {}) };
}

/** root/sign-intermediate (issuer/<ref>/sign-intermediate): an issuer signs a CA CSR. */
export async function signIntermediate(
  deps: Deps,
  part: Partition,
  csr: ParsedCsr,
  r: CaRequest,
  useCsrValues: boolean,
  maxTtl: number,
  issuerRef = 'default',
): Promise<CertOutput & { warnings: string[] }> {
  const issuer = await loadIssuer(deps, part, issuerRef);
  if (issuer.cert.pathLen === 0)
    throw new InvalidInput('the signing CA has a max path length of 0 and cannot sign further CA certificates');
  if (!useCsrValues && !r.commonName) throw new InvalidInput('the common_name field is required');
  const pathLen = r.maxPathLength < 0 && issuer.cert.pathLen !== undefined ? issuer.cert.pathLen - 1 : r.maxPathLength;
  const subject = useCsrValues ? csr.subjectDer : encodeName(caSubject(r));
  const limits = { mountDefaultTtl: 0, mountMaxTtl: maxTtl };
  const request = useCsrValues ? withCsrNames(r, csr) : { ...r };
  const built = await caCertificate(deps, part, request, csr.spki, subject, issuingWith(issuer), limits, pathLen);
  const { notAfter, warnings } = built;
  await pkiRepository(deps, part).storeCertificate(built.serial, built.der, notAfter, issuer.record.id);
  countIssued(part, issuer.record.id);
  return {
    certificate: built.der,
    serial: built.serial,
    notAfter,
    issuingCa: issuer.record.certificate,
    caChain: [issuer.record.certificate, ...issuer.record.caChain],
    warnings,
  };
}

/** use_csr_values: the CSR's SANs in place of the request's names, and no common name of the request's. */
function withCsrNames(r: CaRequest, csr: ParsedCsr): CaRequest {
  return {
    ...r,
    commonName: '',
    altNames: [...csr.sans.dns, ...csr.sans.email],
    ipSans: csr.sans.ip,
    uriSans: csr.sans.uri,
    otherSans: [],
  };
}

/** The mount's CA as the issuer of a certificate it signs: its subject, key identifier and signer. */
function issuingWith(issuer: Issuer): { subjectDer: Buffer; keyId: Buffer; signer: Signer; record: IssuerRecord } {
  return {
    subjectDer: issuer.cert.subjectDer,
    keyId: issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki),
    signer: issuer.signer,
    record: issuer.record,
  };
}
