/** issue, sign, sign-verbatim: leaf certificates under a role. */
import { BadRequest } from '../../errors';
import { f, type Fields } from '../../http/fields';
import { definePath, type Req, type ReqContext, type Result } from '../../http/path';
import { requireRole, type RoleRule } from '../../http/role-required';
import { csrFromPem, issueLeaf, signLeaf, signVerbatim, type LeafResult } from '../leaf';
import { parseCsr } from '../parse';
import { PkiRepository } from '../repository';
import { checkRoleName, roleForCaller, type Role } from '../role';
import { colonSerial } from '../serial';
import { certificateData } from './certificate-data';
import { csrParams } from './csr-params';
import { formatFields, nameFields } from './fields';
import { leafRequest as leafRequestOf } from './wire';

/** Issuing reads the role through the per-process cache (pki-store.ts). */
const pkiRole: RoleRule<Role> = {
  check: checkRoleName,
  load: (req, name) => new PkiRepository(req.deps, req.part).cachedRole(name),
  unknown: (name) => new BadRequest(`unknown role: ${name}`),
};

/**
 * The response, with the certificate as its secret when the role asks for a lease (revoking it
 * revokes the certificate): the edge leases it under the request's path (issue/<role>,
 * sign/<role>, sign-verbatim[/<role>]), for as long as the certificate is valid.
 */
function respond(req: ReqContext, role: Role | undefined, out: LeafResult, format: string): Result {
  const data = certificateData(out, format);
  const result: Result = { data, ...(out.warnings.length ? { warnings: out.warnings } : {}) };
  if (role?.generateLease && out.stored) {
    const ttl = Math.max(1, Math.floor((out.notAfter - req.deps.now()) / 1000));
    result.secret = { revoke: { serial: colonSerial(out.serial) }, ttl };
  }
  return result;
}

/** The named role, its identity templates filled in for the caller. */
const callerRole = async (req: ReqContext, name: string): Promise<Role> =>
  roleForCaller((await requireRole(pkiRole, req, name)).role, req.principal?.identity);

const mountLimits = (req: ReqContext) => ({ defaultLeaseTtl: req.mount.defaultLeaseTtl, maxLeaseTtl: req.mount.maxLeaseTtl });

const verbatimFields = {
  csr: f.string({ required: true }),
  key_usage: f.list({ default: ['DigitalSignature', 'KeyAgreement', 'KeyEncipherment'] }),
  ext_key_usage: f.list({ default: [] }),
  ext_key_usage_oids: f.list({ default: [] }),
  ttl: f.duration(),
  not_after: f.string({ default: '' }),
  format: formatFields.format,
};

const verbatim = async (req: Req<typeof verbatimFields>, roleName: string | undefined) => {
  const role = roleName ? await callerRole(req, roleName) : undefined;
  const csr = parseCsr(csrFromPem(req.data.csr));
  const out = await signVerbatim(
    req.deps,
    req.part,
    role,
    csr,
    {
      ttl: req.data.ttl,
      notAfter: req.data.not_after || undefined,
      keyUsage: req.data.key_usage,
      extKeyUsage: req.data.ext_key_usage,
      extKeyUsageOids: req.data.ext_key_usage_oids,
      ...pathIssuer(req.data),
      roleName,
    },
    mountLimits(req),
  );
  return respond(req, role, out, req.data.format);
};

/** The issuer a path names (issuer/<ref>/…), over the role's. */
const pathIssuer = (d: object) => {
  const ref = (d as { issuer_ref?: string }).issuer_ref;
  return ref ? { issuerRef: ref } : {};
};

/** `fields` with, on the issuer/<ref>/… variants, the issuer parameter (typed as `fields`: the handlers read it through pathIssuer). */
function withIssuerRef<F extends Fields>(prefix: string, fields: F): F {
  return prefix ? { issuer_ref: f.pathParam({ description: 'the issuer: default, its id or its name' }), ...fields } : fields;
}

/** issue/<role>, under the mount or under issuer/<ref>/. */
function issuePath(prefix: string) {
  return definePath({
    pattern: `${prefix}issue/:name`,
    fields: withIssuerRef(prefix, { name: f.pathParam(), ...nameFields, ...formatFields }),
    help: "Issue a certificate and private key under a role (through the issuer the path names, else the role's).",
    operations: {
      write: async (req) => {
        const d = req.data;
        const role = await callerRole(req, d.name);
        const out = await issueLeaf(
          req.deps,
          req.part,
          role,
          { ...leafRequestOf(d), ...pathIssuer(d), roleName: d.name },
          mountLimits(req),
          d.private_key_format || 'der',
        );
        return respond(req, role, out, d.format);
      },
    },
  });
}

/** sign/<role>, under the mount or under issuer/<ref>/. */
function signPath(prefix: string) {
  return definePath({
    pattern: `${prefix}sign/:name`,
    fields: withIssuerRef(prefix, { name: f.pathParam(), csr: f.string({ required: true }), ...nameFields, format: formatFields.format }),
    derivedParams: csrParams,
    help: "Sign a CSR under a role (through the issuer the path names, else the role's).",
    operations: {
      write: async (req) => {
        const d = req.data;
        const role = await callerRole(req, d.name);
        const csr = parseCsr(csrFromPem(d.csr));
        const request = { ...leafRequestOf(d), ...pathIssuer(d), roleName: d.name };
        const out = await signLeaf(req.deps, req.part, role, csr, request, mountLimits(req));
        return respond(req, role, out, d.format);
      },
    },
  });
}

/** sign-verbatim and sign-verbatim/<role>, under the mount or under issuer/<ref>/. */
function verbatimPaths(prefix: string) {
  return [
    definePath({
      pattern: `${prefix}sign-verbatim`,
      fields: withIssuerRef(prefix, verbatimFields),
      derivedParams: csrParams,
      help: 'Sign a CSR with its own subject and SANs (dangerous: trusted callers only).',
      operations: { write: (req) => verbatim(req, undefined) },
    }),
    definePath({
      pattern: `${prefix}sign-verbatim/:name`,
      fields: withIssuerRef(prefix, { name: f.pathParam(), ...verbatimFields }),
      derivedParams: csrParams,
      help: 'Sign a CSR verbatim, with the ttl and storage rules of a role.',
      operations: { write: (req) => verbatim(req, req.data.name) },
    }),
  ];
}

export const issuePaths = ['', 'issuer/:issuer_ref/'].flatMap((prefix) => [issuePath(prefix), signPath(prefix), ...verbatimPaths(prefix)]);
