/**
 * finalize (RFC 8555 section 7.4) and the certificate download: the CSR must ask for exactly
 * the order's identifiers, and is signed under the directory's policy: its role's rules (key
 * type, names, TTL) as for `sign/<role>`, or, for sign-verbatim, a policy that copies nothing
 * from the CSR but its key and the validated identifiers. TTL is capped by config/acme max_ttl.
 * The directory's issuer signs (scope.ts: the path's, else the role's, else the default).
 */
import { InvalidInput } from '../../domain-errors';
import { csrFromPem, signLeaf, type LeafRequest } from '../leaf';
import { parseCsr, type ParsedCsr } from '../parse';
import { toPem } from '../pem';
import type { Role } from '../role';
import { serialKey } from '../serial';
import type { Versioned } from './acme-store';
import { json, type AcmeAnswer } from './answer';
import { loadOrder } from './orders';
import { orderObject, orderUrl } from './objects';
import { AcmeProblem, malformed } from './problem';
import type { AccountRecord, OrderRecord } from './records';
import type { AcmeScope } from './scope';

/** Sign-verbatim through ACME: any validated name, the CSR's key, a server certificate. */
const VERBATIM: Role = {
  ttl: 0,
  maxTtl: 0,
  allowLocalhost: true,
  allowedDomains: [],
  allowedDomainsTemplate: false,
  allowBareDomains: true,
  allowSubdomains: true,
  allowGlobDomains: false,
  allowWildcardCertificates: true,
  allowAnyName: true,
  enforceHostnames: true,
  allowIpSans: true,
  allowedUriSans: [],
  allowedUriSansTemplate: false,
  allowedOtherSans: [],
  allowedSerialNumbers: [],
  serverFlag: true,
  clientFlag: false,
  codeSigningFlag: false,
  emailProtectionFlag: false,
  keyType: 'any',
  keyBits: 0,
  signatureBits: 0,
  keyUsage: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'],
  extKeyUsage: [],
  extKeyUsageOids: [],
  useCsrCommonName: false,
  useCsrSans: false,
  ou: [],
  organization: [],
  country: [],
  locality: [],
  province: [],
  streetAddress: [],
  postalCode: [],
  generateLease: false,
  noStore: false,
  requireCn: false,
  policyIdentifiers: [],
  basicConstraintsValidForNonCa: false,
  notBeforeDuration: 30,
  notAfter: '',
};

/** The role as ACME applies it: names from the order only; server auth alone unless allow_role_ext_key_usage. */
function acmeRole(scope: AcmeScope): Role {
  if (scope.policy.kind === 'verbatim') return VERBATIM;
  const r = scope.policy.role;
  const eku = scope.config.allowRoleExtKeyUsage
    ? {}
    : { serverFlag: true, clientFlag: false, codeSigningFlag: false, emailProtectionFlag: false, extKeyUsage: [], extKeyUsageOids: [] };
  return { ...r, ...eku, useCsrCommonName: false, useCsrSans: false, requireCn: false, generateLease: false, notAfter: '' };
}

const sortedKey = (xs: string[]) => [...new Set(xs)].sort().join('\n');

type CsrNames = { commonName: string; dns: string[]; ip: string[] };

/** The CSR asks for exactly the order's names (CN, if any, one of them); else badCSR. */
function checkCsrNames(csr: ParsedCsr, order: OrderRecord): CsrNames {
  const dns = order.identifiers.filter((i) => i.type === 'dns').map((i) => i.value);
  const ip = order.identifiers.filter((i) => i.type === 'ip').map((i) => i.value);
  if (csr.isCa) throw new AcmeProblem('badCSR', 'the CSR asks for a CA certificate');
  if (csr.sans.email.length || csr.sans.uri.length) throw new AcmeProblem('badCSR', 'the CSR may only name DNS names and IP addresses');
  const cn = csr.subject.commonName?.toLowerCase();
  const csrDns = csr.sans.dns.map((d) => d.toLowerCase());
  if (cn && !dns.includes(cn) && !ip.includes(cn))
    throw new AcmeProblem('badCSR', `the CSR's common name ${JSON.stringify(cn.slice(0, 80))} is not one of the order's identifiers`);
  const asked = cn && !ip.includes(cn) ? [...csrDns, cn] : csrDns;
  // The CSR reader prints IP addresses canonically, as identifiers are kept.
  if (sortedKey(asked) !== sortedKey(dns) || sortedKey(csr.sans.ip) !== sortedKey(ip))
    throw new AcmeProblem('badCSR', "the CSR's names differ from the order's identifiers");
  // A CN that is an IP address stays out of the subject: IP addresses are iPAddress SANs.
  return { commonName: cn && dns.includes(cn) ? cn : (dns[0] ?? ''), dns, ip };
}

export async function finalize(
  scope: AcmeScope,
  account: AccountRecord,
  id: string,
  payload: Record<string, unknown> | undefined,
): Promise<AcmeAnswer> {
  const { order, status } = await loadOrder(scope, account, id);
  if (status !== 'ready') throw new AcmeProblem('orderNotReady', `the order is ${status}, not ready`);
  const csr = csrOfPayload(payload);
  const names = checkCsrNames(csr, order.value);
  const processing = await claimOrder(scope, order);
  const role = acmeRole(scope);
  const request = leafRequestFor(scope, role, order.value, names);
  const next = await signOrder(scope, account, order, processing, { role, csr, request });
  await scope.store.putOrder(next, order.version + 1);
  return json(orderObject(scope, next, 'valid'), { location: orderUrl(scope, id) });
}

/** The payload's `csr`, base64url DER, parsed; else malformed or badCSR. */
function csrOfPayload(payload: Record<string, unknown> | undefined): ParsedCsr {
  if (!payload || typeof payload.csr !== 'string' || !/^[A-Za-z0-9_-]+$/.test(payload.csr))
    throw malformed('finalize needs "csr": a base64url DER CSR');
  try {
    return parseCsr(csrFromPem(toPem('CERTIFICATE REQUEST', Buffer.from(payload.csr, 'base64url'))));
  } catch (e) {
    throw new AcmeProblem('badCSR', e instanceof InvalidInput ? e.message : 'the CSR could not be parsed');
  }
}

/** Claims the order (processing) by a conditional write, so that one finalize signs. */
async function claimOrder(scope: AcmeScope, order: Versioned<OrderRecord>): Promise<OrderRecord> {
  const processing: OrderRecord = { ...order.value, status: 'processing', started: scope.deps.now() };
  try {
    await scope.store.putOrder(processing, order.version);
  } catch {
    throw new AcmeProblem('orderNotReady', 'the order is being finalized by another request');
  }
  return processing;
}

/** The order's names, with the order's notAfter (or the role's TTL) capped by max_ttl. */
function leafRequestFor(scope: AcmeScope, role: Role, order: OrderRecord, names: CsrNames): LeafRequest {
  const maxTtl = scope.config.maxTtl;
  const wanted = order.notAfter
    ? Math.ceil((Date.parse(order.notAfter) - scope.deps.now()) / 1000)
    : role.ttl || scope.mountLimits.defaultLeaseTtl;
  return {
    roleName: scope.policy.kind === 'role' ? scope.policy.name : '',
    commonName: names.commonName,
    altNames: names.dns,
    ipSans: names.ip,
    uriSans: [],
    otherSans: [],
    excludeCnFromSans: false,
    ttl: Math.max(1, Math.min(wanted, maxTtl)),
    serialNumber: '',
    issuerRef: scope.issuerId,
  };
}

type Signing = { role: Role; csr: ParsedCsr; request: LeafRequest };

/**
 * Signs the claimed order's certificate and answers the order as it will be stored (valid).
 * A refusal of the CSR stores the order invalid (badCSR); any other failure puts it back as it was.
 */
async function signOrder(
  scope: AcmeScope,
  account: AccountRecord,
  order: Versioned<OrderRecord>,
  processing: OrderRecord,
  { role, csr, request }: Signing,
): Promise<OrderRecord> {
  try {
    const out = await signLeaf(scope.deps, scope.part, role, csr, request, scope.mountLimits);
    const chain = [toPem('CERTIFICATE', out.certificate), ...(out.caChain ?? [out.issuingCa])].map((p) => p.trim() + '\n').join('');
    await scope.store.setCertOwner(serialKey(out.serial), account.id);
    return { ...processing, status: 'valid', serial: serialKey(out.serial), chain, certNotAfter: out.notAfter };
  } catch (e) {
    if (!(e instanceof InvalidInput)) {
      await scope.store.putOrder(order.value, order.version + 1).catch(() => undefined);
      throw e;
    }
    const problem = new AcmeProblem('badCSR', e.message);
    await scope.store.putOrder(
      { ...processing, status: 'invalid', error: { type: problem.document.type, detail: e.message, status: problem.status } },
      order.version + 1,
    );
    throw problem;
  }
}

/** The certificate and its chain, PEM (application/pem-certificate-chain). */
export async function certificate(scope: AcmeScope, account: AccountRecord, id: string): Promise<AcmeAnswer> {
  const { order } = await loadOrder(scope, account, id);
  if (order.value.status !== 'valid' || !order.value.chain)
    throw new AcmeProblem('malformed', 'the order has no certificate', { status: 404 });
  return { status: 200, body: order.value.chain, contentType: 'application/pem-certificate-chain' };
}
