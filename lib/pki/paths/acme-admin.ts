/**
 * The ACME server's administration (authenticated, as the reference's): config/acme,
 * config/cluster (the mount's external URL), and external account binding keys: acme/new-eab
 * per directory (the mount's, a role's, an issuer's, a role's under an issuer), the list of
 * unused ones (eab/) and their deletion (eab/<id>).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { BadRequest, NotFound } from '../../errors';
import { formatDuration } from '../../duration';
import { f } from '../../http/fields';
import { definePath, type ReqContext } from '../../http/path';
import { AcmeStore } from '../acme/acme-store';
import { checkAcmeConfig, directoryPrefix, type DirectoryPath } from '../acme/scope';
import type { AcmeConfig, ClusterConfig, EabPolicy } from '../config';
import { pkiRepository } from '../issuer';
import { PkiRepository } from '../repository';
import { checkRoleName } from '../role';

const acmeWire = (c: AcmeConfig) => ({
  enabled: c.enabled,
  allowed_issuers: c.allowedIssuers,
  allowed_roles: c.allowedRoles,
  allow_role_ext_key_usage: c.allowRoleExtKeyUsage,
  default_directory_policy: c.defaultDirectoryPolicy,
  eab_policy: c.eabPolicy,
  dns_resolver: c.dnsResolver,
  max_ttl: formatDuration(c.maxTtl),
});

/** `aia_path` is always empty, so a value is refused: an issuer's AIA templates take `{{issuer_id}}` and `{{cluster_path}}`, not `{{cluster_aia_path}}`. */
const clusterWire = (c: ClusterConfig) => ({ path: c.path, aia_path: '' });

function checkUrl(name: string, v: string): string {
  if (v === '') return v;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new BadRequest(`${name} must be an absolute http(s) URL`);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || u.search || u.hash || v.length > 1024)
    throw new BadRequest(`${name} must be an http(s) URL without query or fragment`);
  return v.replace(/\/+$/, '');
}

/** A new binding for the directory the path names (its role and issuer must exist). */
async function newEab(req: ReqContext, dir: DirectoryPath) {
  const directory = directoryPrefix({ ...dir, ...(dir.role === undefined ? {} : { role: checkRoleName(dir.role) }) });
  if (dir.role !== undefined && !(await new PkiRepository(req.deps, req.part).hasRole(dir.role)))
    throw new BadRequest(`role "${dir.role}" not found`);
  if (dir.issuerRef !== undefined && !(await pkiRepository(req.deps, req.part).findIssuer(dir.issuerRef)))
    throw new BadRequest(`issuer "${dir.issuerRef.slice(0, 64)}" not found`);
  const id = randomUUID();
  const key = randomBytes(32);
  const rec = await new AcmeStore(req.deps, req.part).createEab(id, directory, key, req.deps.now());
  return {
    data: {
      id,
      key_type: 'hs',
      key_bits: 256,
      key: key.toString('base64url'),
      acme_directory: `${directory}acme/directory`,
      created_on: new Date(rec.createdAt).toISOString(),
    },
  };
}

export const acmeAdminPaths = [
  definePath({
    pattern: 'config/acme',
    fields: {
      enabled: f.bool(),
      allowed_issuers: f.list(),
      allowed_roles: f.list(),
      allow_role_ext_key_usage: f.bool(),
      default_directory_policy: f.string(),
      eab_policy: f.string(),
      dns_resolver: f.string(),
      max_ttl: f.duration(),
    },
    help: 'The ACME server: on or off, which directories and roles, external account binding, the DNS resolver for validation.',
    operations: {
      read: async (req) => ({ data: acmeWire(await new PkiRepository(req.deps, req.part).config('acme')) }),
      write: async (req) => {
        const pki = new PkiRepository(req.deps, req.part);
        const cur = await pki.config('acme');
        const d = req.data;
        const next: AcmeConfig = {
          enabled: d.enabled ?? cur.enabled,
          allowedIssuers: d.allowed_issuers ?? cur.allowedIssuers,
          allowedRoles: d.allowed_roles ?? cur.allowedRoles,
          allowRoleExtKeyUsage: d.allow_role_ext_key_usage ?? cur.allowRoleExtKeyUsage,
          defaultDirectoryPolicy: d.default_directory_policy ?? cur.defaultDirectoryPolicy,
          eabPolicy: (d.eab_policy ?? cur.eabPolicy) as EabPolicy,
          dnsResolver: d.dns_resolver ?? cur.dnsResolver,
          maxTtl: d.max_ttl ?? cur.maxTtl,
        };
        await checkAcmeConfig(req.deps, req.part, next);
        await pki.writeConfig('acme', next);
        return { data: acmeWire(next) };
      },
    },
  }),
  definePath({
    pattern: 'config/cluster',
    fields: { path: f.string(), aia_path: f.string() },
    help: "The mount's external URL (path, e.g. https://<api>/v1/pki), which the ACME directory's URLs start with.",
    operations: {
      read: async (req) => ({ data: clusterWire(await new PkiRepository(req.deps, req.part).config('cluster')) }),
      write: async (req) => {
        const pki = new PkiRepository(req.deps, req.part);
        const cur = await pki.config('cluster');
        if (req.data.aia_path)
          throw new BadRequest('aia_path is not supported: AIA templates use {{cluster_path}} (set path here) and {{issuer_id}}');
        const next: ClusterConfig = { path: checkUrl('path', req.data.path ?? cur.path) };
        await pki.writeConfig('cluster', next);
        return { data: clusterWire(next) };
      },
    },
  }),
  definePath({
    pattern: 'acme/new-eab',
    fields: {},
    help: "A new external account binding key for the mount's default ACME directory.",
    operations: { write: (req) => newEab(req, {}) },
  }),
  definePath({
    pattern: 'roles/:role/acme/new-eab',
    fields: { role: f.pathParam() },
    help: "A new external account binding key for a role's ACME directory.",
    operations: { write: (req) => newEab(req, { role: req.data.role }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/acme/new-eab',
    fields: { issuer_ref: f.pathParam() },
    help: "A new external account binding key for an issuer's ACME directory.",
    operations: { write: (req) => newEab(req, { issuerRef: req.data.issuer_ref }) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/roles/:role/acme/new-eab',
    fields: { issuer_ref: f.pathParam(), role: f.pathParam() },
    help: "A new external account binding key for a role's ACME directory under an issuer.",
    operations: { write: (req) => newEab(req, { issuerRef: req.data.issuer_ref, role: req.data.role }) },
  }),
  definePath({
    pattern: 'eab',
    fields: {},
    help: 'The unused external account binding keys.',
    operations: {
      list: async (req) => {
        const all = await new AcmeStore(req.deps, req.part).eabs();
        if (!all.length) throw new NotFound();
        return {
          data: {
            keys: all.map((e) => e.id),
            key_info: Object.fromEntries(
              all.map((e) => [
                e.id,
                { key_type: 'hs', acme_directory: `${e.directory}acme/directory`, created_on: new Date(e.createdAt).toISOString() },
              ]),
            ),
          },
        };
      },
    },
  }),
  definePath({
    pattern: 'eab/:id',
    fields: { id: f.pathParam() },
    help: 'Delete an unused external account binding key.',
    operations: {
      delete: async (req) => {
        await new AcmeStore(req.deps, req.part).useEab(req.data.id);
      },
    },
  }),
];
