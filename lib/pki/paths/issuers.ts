/**
 * The issuers of a PKI mount (OpenBao's API): list them, read one (with its settings, or its
 * certificate alone, unauthenticated, as JSON, DER or PEM), update (POST replaces, PATCH
 * changes the fields given), revoke and delete one; each issuer's CRL; the default issuer.
 */
import { NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext, type Result } from '../../http/path';
import { currentCrl } from '../crl';
import { pkiRepository } from '../issuer';
import { deleteIssuer, revokeIssuer, setDefaultIssuer, updateIssuer, type IssuerSettings } from '../issuer-admin';
import { pemBlocks, toPem } from '../pem';
import type { IssuerRecord, IssuerUsage, LeafNotAfterBehavior } from '../storage';

const ref = { issuer_ref: f.pathParam({ description: 'the issuer: default, its id or its name' }) };

const settingFields = {
  issuer_name: f.string({ description: 'a name unique in the mount (not "default")' }),
  leaf_not_after_behavior: f.string({ description: 'err, truncate or permit: a leaf longer than the issuer' }),
  usage: f.list({ description: 'read-only, issuing-certificates, crl-signing, ocsp-signing' }),
  manual_chain: f.list({ description: 'issuer references of the chain to serve, this issuer first' }),
  revocation_signature_algorithm: f.string({ description: 'the CRL signature algorithm (empty: by the key)' }),
  issuing_certificates: f.list({ description: "this issuer's AIA issuing certificate URLs" }),
  crl_distribution_points: f.list({ description: "this issuer's CRL distribution points" }),
  delta_crl_distribution_points: f.list({ description: "this issuer's delta CRL distribution points" }),
  ocsp_servers: f.list({ description: "this issuer's OCSP servers" }),
  enable_aia_url_templating: f.bool({ description: 'replace {{issuer_id}} and {{cluster_path}} in the URLs above' }),
};

type SettingsData = { [K in keyof typeof settingFields]?: unknown };

/** The settings a request gives, in domain names (only those given). */
function givenSettings(d: SettingsData): Partial<IssuerSettings> {
  const out: Partial<IssuerSettings> = {};
  if (d.issuer_name !== undefined) out.name = d.issuer_name as string;
  if (d.leaf_not_after_behavior !== undefined) out.leafNotAfterBehavior = d.leaf_not_after_behavior as LeafNotAfterBehavior;
  if (d.usage !== undefined) out.usage = d.usage as IssuerUsage[];
  if (d.manual_chain !== undefined) out.manualChain = d.manual_chain as string[];
  if (d.revocation_signature_algorithm !== undefined) out.revocationSignatureAlgorithm = d.revocation_signature_algorithm as string;
  if (d.issuing_certificates !== undefined) out.issuingCertificates = d.issuing_certificates as string[];
  if (d.crl_distribution_points !== undefined) out.crlDistributionPoints = d.crl_distribution_points as string[];
  if (d.delta_crl_distribution_points !== undefined) out.deltaCrlDistributionPoints = d.delta_crl_distribution_points as string[];
  if (d.ocsp_servers !== undefined) out.ocspServers = d.ocsp_servers as string[];
  if (d.enable_aia_url_templating !== undefined) out.enableAiaUrlTemplating = d.enable_aia_url_templating as boolean;
  return out;
}

/** The issuer's certificate and its chain (itself first), as OpenBao answers them. */
const certificateView = (i: IssuerRecord) => ({ certificate: i.certificate, ca_chain: [i.certificate, ...i.caChain] });

const revocationView = (i: IssuerRecord) => ({
  revoked: i.revokedAt !== undefined,
  revocation_time: i.revokedAt ? Math.floor(i.revokedAt / 1000) : 0,
  ...(i.revokedAt ? { revocation_time_rfc3339: new Date(i.revokedAt).toISOString() } : {}),
});

export function issuerView(i: IssuerRecord): Record<string, unknown> {
  return {
    ...certificateView(i),
    issuer_id: i.id,
    issuer_name: i.name,
    key_id: i.keyId,
    leaf_not_after_behavior: i.leafNotAfterBehavior,
    manual_chain: i.manualChain.length ? i.manualChain : null,
    usage: i.usage.join(','),
    revocation_signature_algorithm: i.revocationSignatureAlgorithm,
    issuing_certificates: i.issuingCertificates,
    crl_distribution_points: i.crlDistributionPoints,
    delta_crl_distribution_points: i.deltaCrlDistributionPoints ?? [],
    ocsp_servers: i.ocspServers,
    enable_aia_url_templating: i.enableAiaUrlTemplating,
    ...revocationView(i),
  };
}

const issuer = (req: ReqContext, r: string) => pkiRepository(req.deps, req.part).resolveIssuer(r);

async function listIssuers(req: ReqContext): Promise<Result> {
  const all = await pkiRepository(req.deps, req.part).issuers();
  if (!all.length) throw new NotFound();
  const keyInfo = Object.fromEntries(all.map((i) => [i.id, { issuer_name: i.name, is_default: false }]));
  const def = (await pkiRepository(req.deps, req.part).issuersConfig()).default;
  if (keyInfo[def]) keyInfo[def]!.is_default = true;
  return { data: { keys: all.map((i) => i.id), key_info: keyInfo } };
}

/** The unauthenticated certificate reads of one issuer: JSON, DER, PEM. */
const certificatePaths = [
  definePath({
    pattern: 'issuer/:issuer_ref/json',
    fields: ref,
    unauthenticated: ['read'],
    help: "An issuer's certificate and chain (JSON).",
    operations: {
      read: async (req) => ({
        data: { ...certificateView(await issuer(req, req.data.issuer_ref)), ...revocationView(await issuer(req, req.data.issuer_ref)) },
      }),
    },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/der',
    fields: ref,
    unauthenticated: ['read'],
    answers: ['application/pkix-cert'],
    help: "An issuer's certificate, DER.",
    operations: { read: async (req) => ({ raw: { body: pemBlocks((await issuer(req, req.data.issuer_ref)).certificate)[0]!.der } }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/pem',
    fields: ref,
    unauthenticated: ['read'],
    answers: ['application/pem-certificate-chain'],
    help: "An issuer's certificate, PEM.",
    operations: { read: async (req) => ({ raw: { body: (await issuer(req, req.data.issuer_ref)).certificate } }) },
  }),
];

/** Each issuer's CRL, unauthenticated: JSON (`crl`: PEM), DER, PEM. */
const crlPaths = [
  definePath({
    pattern: 'issuer/:issuer_ref/crl',
    fields: ref,
    unauthenticated: ['read'],
    help: "An issuer's CRL (JSON, the CRL as PEM).",
    operations: { read: async (req) => ({ data: { crl: toPem('X509 CRL', await currentCrl(req.deps, req.part, req.data.issuer_ref)) } }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/crl/der',
    fields: ref,
    unauthenticated: ['read'],
    answers: ['application/pkix-crl'],
    help: "An issuer's CRL, DER.",
    operations: { read: async (req) => ({ raw: { body: await currentCrl(req.deps, req.part, req.data.issuer_ref) } }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/crl/pem',
    fields: ref,
    unauthenticated: ['read'],
    answers: ['application/x-pem-file'],
    help: "An issuer's CRL, PEM.",
    operations: { read: async (req) => ({ raw: { body: toPem('X509 CRL', await currentCrl(req.deps, req.part, req.data.issuer_ref)) } }) },
  }),
];

export const issuerPaths = [
  definePath({
    pattern: 'issuers',
    fields: {},
    help: "The mount's issuers: ids, with names in key_info.",
    operations: { list: listIssuers },
  }),
  ...certificatePaths,
  ...crlPaths,
  definePath({
    pattern: 'issuer/:issuer_ref/revoke',
    fields: ref,
    help: 'Revoke an issuer: it issues nothing more, and its parents in this mount list it on their CRLs.',
    operations: { write: async (req) => ({ data: issuerView(await revokeIssuer(req.deps, req.part, req.data.issuer_ref)) }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref',
    fields: { ...ref, ...settingFields },
    help: 'Read, update (POST replaces every setting; PATCH changes those given) or delete an issuer.',
    operations: {
      read: async (req) => ({ data: issuerView(await issuer(req, req.data.issuer_ref)) }),
      write: async (req) => ({
        data: issuerView(await updateIssuer(req.deps, req.part, req.data.issuer_ref, givenSettings(req.data), true)),
      }),
      patch: async (req) => ({
        data: issuerView(await updateIssuer(req.deps, req.part, req.data.issuer_ref, givenSettings(req.data), false)),
      }),
      delete: async (req) => {
        await deleteIssuer(req.deps, req.part, req.data.issuer_ref);
      },
    },
  }),
  definePath({
    pattern: 'config/issuers',
    fields: {
      default: f.string({ description: 'the default issuer: an id or a name' }),
      default_follows_latest_issuer: f.bool({ description: 'a new root or import becomes the default' }),
    },
    help: 'The default issuer.',
    operations: {
      read: async (req) => {
        const c = await pkiRepository(req.deps, req.part).issuersConfig();
        return { data: { default: c.default, default_follows_latest_issuer: c.defaultFollowsLatestIssuer } };
      },
      write: async (req) => {
        await setDefaultIssuer(req.deps, req.part, req.data.default ?? '', req.data.default_follows_latest_issuer);
        const c = await pkiRepository(req.deps, req.part).issuersConfig();
        return { data: { default: c.default, default_follows_latest_issuer: c.defaultFollowsLatestIssuer } };
      },
    },
  }),
  definePath({
    pattern: 'root/replace',
    fields: { default: f.string({ default: 'next', description: 'the new default issuer (default: the issuer named "next")' }) },
    help: 'Make another issuer the default (after root/rotate).',
    operations: {
      write: async (req) => {
        await setDefaultIssuer(req.deps, req.part, req.data.default || 'next', undefined);
        const c = await pkiRepository(req.deps, req.part).issuersConfig();
        return { data: { default: c.default, default_follows_latest_issuer: c.defaultFollowsLatestIssuer } };
      },
    },
  }),
];
