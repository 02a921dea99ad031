/**
 * Issuing leaf certificates: issue (key generated here), sign (a CSR, role rules) and
 * sign-verbatim (a CSR's own subject and SANs). A pipeline of small rules: names, key, ttl,
 * template, sign, store.
 */
import type { Deps } from '../deps';
import { InvalidInput } from '../domain-errors';
import type { Partition } from '../store/store';
import { encodeName, type Subject } from './der/name';
import { loadIssuer, type Issuer } from './issuer';
import { checkCsrKey, checkKeyParams } from './key-params';
import { countIssued } from './issued-metric';
import { buildAndSign, finish, validityFor, type Build, type LeafResult, type MountLimits, type Validity } from './leaf-sign';
import { checkIpSans, checkNames, checkOtherSans, checkSerialNumber, checkUriSans } from './names';
import type { ParsedCsr } from './parse';
import { gatherNames, type NameRequest, type Names } from './request-names';
import type { Role } from './role';
import { onePem } from './pem';
import { newIssuedKey } from './public-key';

export type { LeafResult, MountLimits } from './leaf-sign';

export interface LeafRequest extends NameRequest {
  ttl?: number | undefined;
  notAfter?: string | undefined;
  /** The subject serialNumber attribute. */
  serialNumber: string;
  /** The issuer a path names (issuer/<ref>/issue/<role>), over the role's issuer_ref. */
  issuerRef?: string | undefined;
  /** The role's name, for the issued-certificates metric (its label only). */
  roleName?: string | undefined;
}

/** The issuer that signs: the path's, else the role's, else the default. */
const issuerRefOf = (role: Pick<Role, 'issuerRef'> | undefined, req: { issuerRef?: string | undefined }) =>
  req.issuerRef || role?.issuerRef || 'default';

function checkRoleNames(role: Role, n: Names, serialNumber: string): void {
  if (n.commonName) checkNames(role, [n.commonName]);
  checkNames(role, n.requested ?? [...n.dns, ...n.email]);
  checkIpSans(role, n.ip);
  checkUriSans(role, n.uri);
  checkOtherSans(role, n.other);
  checkSerialNumber(role, serialNumber);
}

function subjectOf(role: Role, commonName: string, serialNumber: string): Subject {
  return {
    commonName,
    organization: role.organization,
    ou: role.ou,
    country: role.country,
    locality: role.locality,
    province: role.province,
    streetAddress: role.streetAddress,
    postalCode: role.postalCode,
    ...(serialNumber ? { serialNumber } : {}),
  };
}

function roleKeyUsages(role: Role): { ku: string[]; eku: string[] } {
  const eku = [...role.extKeyUsage];
  if (role.serverFlag) eku.push('ServerAuth');
  if (role.clientFlag) eku.push('ClientAuth');
  if (role.codeSigningFlag) eku.push('CodeSigning');
  if (role.emailProtectionFlag) eku.push('EmailProtection');
  return { ku: role.keyUsage, eku };
}

/**
 * What issue and sign take from the role, around the certificate's own parts. Fields are
 * listed, not spread: on Node 20's V8, which the local server may run on, `{ ...parts, more }`
 * costs more than the whole rest of this step (figures in BENCHMARKS.md).
 */
function roleBuild(role: Role, parts: Pick<Build, 'issuer' | 'spki' | 'keyType' | 'names' | 'validity' | 'subject'>): Build {
  const { ku, eku } = roleKeyUsages(role);
  return {
    issuer: parts.issuer,
    spki: parts.spki,
    keyType: parts.keyType,
    names: parts.names,
    validity: parts.validity,
    subject: parts.subject,
    emptySubject: parts.subject.length === 2,
    notBeforeDuration: role.notBeforeDuration,
    keyUsage: ku,
    extKeyUsage: eku,
    extKeyUsageOids: role.extKeyUsageOids,
    policyIdentifiers: role.policyIdentifiers,
    basicConstraintsValidForNonCa: role.basicConstraintsValidForNonCa,
    signatureBits: role.signatureBits,
    requestedExtensions: [],
  };
}

/** issue/<role>: a new key pair and a certificate for it. */
export async function issueLeaf(
  deps: Deps,
  part: Partition,
  role: Role,
  req: LeafRequest,
  mount: MountLimits,
  privateKeyFormat: string,
): Promise<LeafResult> {
  if (role.keyType === 'any') throw new InvalidInput('role key type "any" not allowed for issuing certificates, only signing');
  if (!req.commonName && role.requireCn)
    throw new InvalidInput(
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
    );
  const names = gatherNames(req);
  checkRoleNames(role, names, req.serialNumber);
  const issuer = await loadIssuer(deps, part, issuerRefOf(role, req));
  const validity = validityFor(deps, role, req, mount, issuer);
  const key = await newIssuedKey(role.keyType, checkKeyParams(role.keyType, role.keyBits));
  const subject = encodeName(subjectOf(role, names.commonName, req.serialNumber));
  const built = await buildAndSign(deps, part, roleBuild(role, { issuer, spki: key.spki, keyType: key.type, names, validity, subject }));
  const out = await finish(deps, part, issuer, built, role.noStore, key, privateKeyFormat);
  countIssued(part, issuer.record.id, req.roleName);
  return out;
}

/** sign/<role>: a CSR under the role's rules. */
export async function signLeaf(
  deps: Deps,
  part: Partition,
  role: Role,
  csr: ParsedCsr,
  req: LeafRequest,
  mount: MountLimits,
): Promise<LeafResult> {
  checkCsrKey(role, csr);
  const commonName = role.useCsrCommonName ? (csr.subject.commonName ?? '') : req.commonName;
  if (!commonName && role.requireCn)
    throw new InvalidInput(
      'the common_name field is required, or must be provided in a CSR with "use_csr_common_name" set to true, unless "require_cn" is set to false',
    );
  const names = gatherNames({ ...req, commonName }, role.useCsrSans ? csr.sans : undefined);
  checkRoleNames(role, names, req.serialNumber);
  const issuer = await loadIssuer(deps, part, issuerRefOf(role, req));
  const validity = validityFor(deps, role, req, mount, issuer);
  const subject = encodeName(subjectOf(role, commonName, req.serialNumber));
  const built = await buildAndSign(deps, part, roleBuild(role, { issuer, spki: csr.spki, keyType: csr.keyType, names, validity, subject }));
  const out = await finish(deps, part, issuer, built, role.noStore);
  countIssued(part, issuer.record.id, req.roleName);
  return out;
}

export interface VerbatimRequest {
  ttl?: number | undefined;
  notAfter?: string | undefined;
  keyUsage: string[];
  extKeyUsage: string[];
  extKeyUsageOids: string[];
  issuerRef?: string | undefined;
  roleName?: string | undefined;
}

/** sign-verbatim: subject and SANs as the CSR has them; a role, when named, gives ttl and storage. */
export async function signVerbatim(
  deps: Deps,
  part: Partition,
  role: Role | undefined,
  csr: ParsedCsr,
  req: VerbatimRequest,
  mount: MountLimits,
): Promise<LeafResult> {
  if (csr.isCa) throw new InvalidInput('will not sign a CSR asking for a CA certificate: use root/sign-intermediate');
  checkCsrKey({ keyType: 'any', keyBits: 0 }, csr);
  const issuer = await loadIssuer(deps, part, issuerRefOf(role, req));
  // The role gives its ttl and max_ttl, not its not_after (as the reference's sign-verbatim).
  const limits = { ttl: role?.ttl ?? 0, maxTtl: role?.maxTtl ?? 0, notAfter: '' };
  const validity = validityFor(deps, limits, req, mount, issuer);
  const built = await buildAndSign(deps, part, verbatimBuild(role, csr, req, issuer, validity));
  const out = await finish(deps, part, issuer, built, role?.noStore ?? false);
  countIssued(part, issuer.record.id, req.roleName);
  return out;
}

/** The CSR's subject, SANs and extensions as they are; the request's key usages; the role's signature bits. */
function verbatimBuild(role: Role | undefined, csr: ParsedCsr, req: VerbatimRequest, issuer: Issuer, validity: Validity): Build {
  const names: Names = {
    commonName: '',
    dns: csr.sans.dns,
    email: csr.sans.email,
    ip: csr.sans.ip,
    uri: csr.sans.uri,
    other: csr.sans.other,
  };
  return {
    issuer,
    spki: csr.spki,
    keyType: csr.keyType,
    names,
    validity,
    subject: csr.subjectDer,
    emptySubject: csr.subjectDer.length === 2,
    notBeforeDuration: role?.notBeforeDuration ?? 30,
    keyUsage: req.keyUsage,
    extKeyUsage: req.extKeyUsage,
    extKeyUsageOids: req.extKeyUsageOids,
    policyIdentifiers: [],
    basicConstraintsValidForNonCa: false,
    signatureBits: role?.signatureBits ?? 0,
    requestedExtensions: csr.extensions,
  };
}

export const csrFromPem = (pem: string) => onePem(pem, ['CERTIFICATE REQUEST', 'NEW CERTIFICATE REQUEST'], 'the csr');
