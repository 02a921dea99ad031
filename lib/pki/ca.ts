/**
 * CA lifecycle: root generation, intermediate CSR generation, signing intermediates,
 * accepting the signed intermediate, importing a bundle, deleting the key.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import { keyIdentifier, signatureAlgorithm, type Signer } from '../keys/signer';
import { generateKey, LocalSigner } from '../keys/signer-local';
import type { Partition } from '../store/store';
import type { CertOutput } from './cert-output';
import { storeCertificate } from './certs';
import { buildCertificate } from './der/certificate';
import { buildCsr } from './der/csr';
import { subjectAltName } from './der/extensions';
import { encodeName, type Subject } from './der/name';
import { PkiStore } from './pki-store';
import { loadIssuer, openSigner, readCa, sealKey, writeCa, type Issuer } from './issuer';
import { checkKeyParams } from './key-params';
import { openManagedSigner, resolveManagedKey } from './managed-keys';
import { parseCertificate, type ParsedCsr } from './parse';
import { pemBlocks, toPem } from './pem';
import { issuedKeyOf, type IssuedKey } from './public-key';
import { altNamesOf, gatherNames, type NameRequest } from './request-names';
import { colonSerial, randomSerial } from './serial';
import type { CaRecord, KeyRef, PendingRecord } from './storage';
import { caExtensions } from './template';
import { resolveNotAfter, type TtlLimits } from './ttl';

export interface KeyChoice {
  type: 'exported' | 'internal' | 'kms';
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
  ref: KeyRef;
  exported?: IssuedKey;
}

async function newKey(deps: Deps, part: Partition, k: KeyChoice, aad: string): Promise<NewKey> {
  if (k.type === 'kms') {
    if (k.keyParamsGiven) throw new InvalidInput('key_type and key_bits cannot be given with a managed key');
    const mk = resolveManagedKey(k.managedKeyName, k.managedKeyId);
    const signer = await openManagedSigner(mk.keyId, deps.env.region, deps.env.kmsEndpoint);
    return { signer, ref: { kind: 'kms', keyId: mk.keyId, name: mk.name } };
  }
  if (k.keyType === 'any') throw new InvalidInput('key_type "any" cannot be used to generate a key');
  const key = await generateKey(k.keyType as 'rsa', checkKeyParams(k.keyType, k.keyBits));
  const ref = await sealKey(deps, part, key.export({ format: 'der', type: 'pkcs8' }), aad);
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
  issuer: { subjectDer: Buffer; keyId: Buffer; signer: Signer },
  limits: TtlLimits,
  pathLen: number,
) {
  const urls = await new PkiStore(deps, part).config('urls');
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

/** root/generate/<type>: a self-signed CA; refused while the mount has a CA key. */
export async function generateRoot(
  deps: Deps,
  part: Partition,
  r: CaRequest,
  k: KeyChoice,
  maxTtl: number,
): Promise<CertOutput & { warnings: string[] }> {
  if (!r.commonName) throw new InvalidInput('the common_name field is required');
  if ((await readCa(part))?.key)
    throw new InvalidInput('refusing to generate a root certificate over an existing root; delete it first (DELETE root)');
  const limits = { mountDefaultTtl: 0, mountMaxTtl: maxTtl };
  resolveNotAfter(deps.now(), r, limits); // a bad ttl is refused before a key is made
  const key = await newKey(deps, part, k, 'ca-key');
  const subject = encodeName(caSubject(r));
  const built = await caCertificate(
    deps,
    part,
    r,
    key.signer.spki,
    subject,
    { subjectDer: subject, keyId: keyIdentifier(key.signer.spki), signer: key.signer },
    limits,
    r.maxPathLength,
  );
  const { notAfter, warnings } = built;
  const pem = toPem('CERTIFICATE', built.der);
  await writeCa(deps, part, { certificate: pem, chain: [], key: key.ref, serial: colonSerial(built.serial) }, true);
  await storeCertificate(part, built.serial, built.der, notAfter);
  return {
    certificate: built.der,
    serial: built.serial,
    notAfter,
    issuingCa: pem,
    selfSigned: true,
    ...(key.exported ? { privateKey: key.exported } : {}),
    warnings,
  };
}

/** intermediate/generate/<type>: a key and a CSR; the key waits in ca/pending for set-signed. */
export async function generateIntermediate(
  deps: Deps,
  part: Partition,
  r: CaRequest,
  k: KeyChoice,
): Promise<{ csr: Buffer; privateKey?: IssuedKey }> {
  if (!r.commonName) throw new InvalidInput('the common_name field is required');
  const key = await newKey(deps, part, k, 'ca-pending');
  const san = subjectAltName(altNamesOf(gatherNames(r)), false);
  const csr = await buildCsr(encodeName(caSubject(r)), key.signer, signatureAlgorithm(key.signer, r.signatureBits), san ? [san] : []);
  const pending: PendingRecord = { key: key.ref };
  await part.put('ca/pending', pending);
  return { csr, ...(key.exported ? { privateKey: key.exported } : {}) };
}

/** root/sign-intermediate: the mount's CA signs a CA CSR. */
export async function signIntermediate(
  deps: Deps,
  part: Partition,
  csr: ParsedCsr,
  r: CaRequest,
  useCsrValues: boolean,
  maxTtl: number,
): Promise<CertOutput & { warnings: string[] }> {
  const issuer = await loadIssuer(deps, part);
  if (issuer.cert.pathLen === 0)
    throw new InvalidInput('the signing CA has a max path length of 0 and cannot sign further CA certificates');
  if (!useCsrValues && !r.commonName) throw new InvalidInput('the common_name field is required');
  const pathLen = r.maxPathLength < 0 && issuer.cert.pathLen !== undefined ? issuer.cert.pathLen - 1 : r.maxPathLength;
  const subject = useCsrValues ? csr.subjectDer : encodeName(caSubject(r));
  const limits = { mountDefaultTtl: 0, mountMaxTtl: maxTtl };
  const request = useCsrValues ? withCsrNames(r, csr) : { ...r };
  const built = await caCertificate(deps, part, request, csr.spki, subject, issuingWith(issuer), limits, pathLen);
  const { notAfter, warnings } = built;
  await storeCertificate(part, built.serial, built.der, notAfter);
  return {
    certificate: built.der,
    serial: built.serial,
    notAfter,
    issuingCa: issuer.record.certificate,
    caChain: [issuer.record.certificate, ...issuer.record.chain],
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
function issuingWith(issuer: Issuer): { subjectDer: Buffer; keyId: Buffer; signer: Signer } {
  return {
    subjectDer: issuer.cert.subjectDer,
    keyId: issuer.cert.subjectKeyId ?? keyIdentifier(issuer.signer.spki),
    signer: issuer.signer,
  };
}

const samePublicKey = (a: Buffer, b: Buffer) => a.equals(b);

function splitBundle(text: string) {
  const blocks = pemBlocks(text, 'the PEM bundle');
  const certs = blocks.filter((b) => b.label === 'CERTIFICATE').map((b) => parseCertificate(b.der));
  const keys = blocks.filter((b) => b.label.endsWith('PRIVATE KEY'));
  if (blocks.some((b) => b.label !== 'CERTIFICATE' && !b.label.endsWith('PRIVATE KEY')))
    throw new InvalidInput('the PEM bundle may hold only certificates and one private key');
  return { certs, keys };
}

function chainRecord(certs: ReturnType<typeof parseCertificate>[], key: KeyRef): CaRecord {
  const [first, ...rest] = certs;
  if (!first) throw new InvalidInput('no certificate found in the bundle');
  if (!first.isCa) throw new InvalidInput('the certificate is not a CA certificate (basic constraints CA:TRUE missing)');
  return {
    certificate: toPem('CERTIFICATE', first.der),
    chain: rest.map((c) => toPem('CERTIFICATE', c.der)),
    key,
    serial: colonSerial(first.serial),
  };
}

/** intermediate/set-signed: the certificate for the pending (or current) key. */
export async function setSigned(deps: Deps, part: Partition, text: string): Promise<void> {
  const { certs, keys } = splitBundle(text);
  if (keys.length) throw new InvalidInput('the certificate field must not contain a private key');
  const pending = (await part.get<PendingRecord>('ca/pending'))?.value.key;
  const current = (await readCa(part))?.key ?? undefined;
  const ref = pending ?? current;
  if (!ref || !certs[0]) throw new InvalidInput('no pending key: call intermediate/generate first');
  const signer = await openSigner(deps, part, ref, pending ? 'ca-pending' : 'ca-key');
  if (!samePublicKey(signer.spki, certs[0].spki))
    throw new InvalidInput('the certificate does not match the key generated by intermediate/generate');
  const key =
    ref.kind === 'local' && pending
      ? await sealKey(deps, part, await deps.sealer.open(ref.sealed, `${part.name}/ca-pending`), 'ca-key')
      : ref;
  await writeCa(deps, part, chainRecord(certs, key), false);
  await storeCertificate(part, certs[0].serial, certs[0].der, certs[0].notAfter);
  await part.delete('ca/pending');
}

/** config/ca: a private key and its CA certificate (plus any chain) replace the mount's CA. */
export async function importCaBundle(deps: Deps, part: Partition, text: string): Promise<void> {
  const { certs, keys } = splitBundle(text);
  if (keys.length !== 1 || !keys[0]) throw new InvalidInput('the PEM bundle must hold exactly one unencrypted private key');
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: toPem(keys[0].label, keys[0].der), format: 'pem' });
  } catch (e) {
    throw new InvalidInput('the private key could not be parsed (encrypted keys are not supported)', { cause: e });
  }
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  const first = certs.find((c) => c.spki.equals(spki));
  if (!first) throw new InvalidInput('no certificate in the bundle matches the private key');
  const ref = await sealKey(deps, part, key.export({ format: 'der', type: 'pkcs8' }), 'ca-key');
  await writeCa(deps, part, chainRecord([first, ...certs.filter((c) => c !== first)], ref), false);
  await storeCertificate(part, first.serial, first.der, first.notAfter);
}
