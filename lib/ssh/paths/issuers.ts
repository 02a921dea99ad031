/**
 * The SSH mount's issuers, as OpenBao 2.3 serves them: issuers (LIST), issuers/import[/<name>],
 * issuer/<ref> (read, rename, delete), issuer/<ref>/public_key (no token), config/issuers (the
 * default). And one addition of Latchkey's: public_keys (no token), every issuer's public key, one
 * line each, to trust old and new CA keys at once during a rotation (sshd's TrustedUserCAKeys).
 */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req, type Result } from '../../http/path';
import { deleteIssuer, renameIssuer, setDefaultIssuer } from '../issuer-admin';
import { unknownRef } from '../issuer-ref';
import { checkIssuerName, findIssuer, importIssuer, listIssuers, trustedKeyLines } from '../issuers';
import { SshStore } from '../ssh-store';
import { caKeyFields, caKeyOf, issuerData } from './issuer-fields';

const TEXT = 'text/plain; charset=utf-8';
const EXISTING = 'An issuer with the provided public key already exists, returning the existing issuer';
const ref = f.pathParam({ description: "An issuer's id, its name, or default." });

const importFields = {
  ...caKeyFields,
  issuer_name: f.string({ description: 'A name for the issuer, unique in the mount (the path segment, when given, wins).' }),
  set_default: f.bool({ default: false, description: 'Make it the default issuer (the first issuer always is).' }),
};

/** Both import paths: the name from the path segment, or from the body (none: an issuer without a name). */
async function importHandler(req: Req<typeof importFields>): Promise<Result> {
  // As OpenBao: an empty name is no name.
  const given = req.data.issuer_name?.trim() ?? '';
  const name = given ? checkIssuerName(given) : '';
  const { key } = await caKeyOf(req.data);
  const { issuer, existing } = await importIssuer(new SshStore(req.deps, req.part), { key, name, setDefault: req.data.set_default });
  return { data: issuerData(issuer), ...(existing ? { warnings: [EXISTING] } : {}) };
}

const listFields = {
  after: f.string({ description: 'List the issuers whose id sorts after this one.' }),
  limit: f.int({ min: 0, description: 'At most this many issuers (0: all).' }),
};

async function listHandler(req: Req<typeof listFields>): Promise<Result> {
  const { issuers, defaultId } = await listIssuers(new SshStore(req.deps, req.part));
  const after = req.data.after ?? '';
  const page = issuers.filter((i) => i.id > after).slice(0, req.data.limit ? req.data.limit : undefined);
  if (page.length === 0) throw new NotFound();
  return {
    data: {
      keys: page.map((i) => i.id),
      key_info: Object.fromEntries(
        page.map((i) => [i.id, { issuer_name: i.name, is_default: i.id === defaultId, public_key: i.publicKey }]),
      ),
    },
  };
}

export const issuerPaths = [
  definePath({
    pattern: 'issuers',
    fields: listFields,
    help: "List the issuers: ids, with each one's name, whether it is the default, and its public key.",
    operations: { list: listHandler },
  }),
  definePath({
    pattern: 'issuers/import',
    fields: importFields,
    help: 'Import (or generate) a CA key pair as a new issuer, with an optional name.',
    operations: { write: importHandler },
  }),
  definePath({
    pattern: 'issuers/import/:issuer_name',
    fields: { ...importFields, issuer_name: f.pathParam({ description: 'A name for the issuer, unique in the mount.' }) },
    help: 'Import (or generate) a CA key pair as a new issuer named in the path.',
    operations: { write: (req) => importHandler(req) },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref/public_key',
    fields: { issuer_ref: ref },
    help: "An issuer's public key, as text (no token needed).",
    unauthenticated: ['read'],
    answers: [TEXT],
    operations: {
      read: async (req) => {
        const issuer = await findIssuer(new SshStore(req.deps, req.part), req.data.issuer_ref);
        if (!issuer) throw new NotFound(unknownRef(req.data.issuer_ref));
        return { raw: { body: issuer.publicKey, contentType: TEXT } };
      },
    },
  }),
  definePath({
    pattern: 'issuer/:issuer_ref',
    fields: { issuer_ref: ref, issuer_name: f.string({ default: '', description: 'The new name (unique in the mount).' }) },
    help: 'Read an issuer, rename it, or delete it (the default too: the mount then has no default).',
    operations: {
      read: async (req) => {
        const issuer = await findIssuer(new SshStore(req.deps, req.part), req.data.issuer_ref);
        if (!issuer) throw new NotFound(unknownRef(req.data.issuer_ref));
        return { data: issuerData(issuer) };
      },
      write: async (req) => {
        const { issuer, warnings } = await renameIssuer(new SshStore(req.deps, req.part), req.data.issuer_ref, req.data.issuer_name);
        return { data: issuerData(issuer), ...(warnings.length ? { warnings } : {}) };
      },
      delete: async (req) => {
        const warnings = await deleteIssuer(new SshStore(req.deps, req.part), req.data.issuer_ref);
        // As OpenBao: 204 unless there is something to warn about.
        return warnings.length ? { warnings } : undefined;
      },
    },
  }),
  definePath({
    pattern: 'config/issuers',
    fields: { default: f.string({ default: '', description: "The default issuer: an issuer's id or name (required on write)." }) },
    help: 'Read or set the default issuer.',
    operations: {
      read: async (req) => {
        const issuer = await findIssuer(new SshStore(req.deps, req.part), 'default');
        if (!issuer) throw new NotFound('no default issuer currently configured');
        return { data: { default: issuer.id } };
      },
      write: async (req) => {
        if (!req.data.default) throw new BadRequest("invalid issuer specification; must be non-empty and can't be 'default'");
        const { id, previous } = await setDefaultIssuer(new SshStore(req.deps, req.part), req.data.default);
        if (previous === id) return { warnings: ['The default issuer is already set to the specified issuer.'] };
        const given = req.data.default.trim();
        const resolved = given === id ? '' : ` (resolved to ${id})`;
        return {
          data: { default: id },
          ...(previous ? { warnings: [`Previous default (${previous}) has been updated with the issuer '${given}'${resolved}`] } : {}),
        };
      },
    },
  }),
  definePath({
    pattern: 'public_keys',
    fields: {},
    help: "Every issuer's public key, one line each (the default first): a TrustedUserCAKeys file for sshd (no token needed). Latchkey's, not OpenBao's.",
    unauthenticated: ['read'],
    answers: [TEXT],
    operations: {
      read: async (req) => {
        const { issuers, defaultId } = await listIssuers(new SshStore(req.deps, req.part));
        if (issuers.length === 0) throw new NotFound();
        return { raw: { body: trustedKeyLines(issuers, defaultId), contentType: TEXT } };
      },
    },
  }),
];
