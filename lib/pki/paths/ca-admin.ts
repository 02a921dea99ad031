/** CA lifecycle paths: root and intermediate generation, signing intermediates, imports. */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext, type Result } from '../../http/path';
import { pkiRepository } from '../issuer';
import { generateIntermediate, generateRoot, signIntermediate } from '../ca';
import { deleteAllIssuers, importBundle, setSigned, type Imported } from '../ca-import';
import { csrFromPem } from '../leaf';
import { parseCsr } from '../parse';
import { toPem } from '../pem';
import { privateKeyText } from '../private-key';
import { signSelfIssued } from '../self-issued';
import { certificateData } from './certificate-data';
import { csrParams } from './csr-params';
import { caFields, formatFields } from './fields';
import { caRequest, keyChoice } from './wire';

const TYPES = ['exported', 'internal', 'kms'];

/** What an import answers, in OpenBao's names. */
function importedData(out: Imported): Record<string, unknown> {
  return {
    imported_issuers: out.importedIssuers.length ? out.importedIssuers : null,
    imported_keys: out.importedKeys.length ? out.importedKeys : null,
    existing_issuers: out.existingIssuers.length ? out.existingIssuers : null,
    existing_keys: out.existingKeys.length ? out.existingKeys : null,
    mapping: out.mapping,
  };
}

const importedResult = (out: Imported): Result => ({ data: importedData(out), ...(out.warnings.length ? { warnings: out.warnings } : {}) });

/** A new issuer's identity, as root/generate answers it. */
async function newIssuerData(req: ReqContext, issuerId: string, keyId: string): Promise<Record<string, unknown>> {
  const repo = pkiRepository(req.deps, req.part);
  const [issuer, key] = await Promise.all([repo.issuer(issuerId), repo.key(keyId)]);
  return { issuer_id: issuerId, issuer_name: issuer?.name ?? '', key_id: keyId, key_name: key?.name ?? '' };
}
const checkType = (t: string, existing: boolean) => {
  if (!TYPES.includes(t) && !(existing && t === 'existing'))
    throw new BadRequest(`invalid type "${t.slice(0, 40)}": use exported, internal, ${existing ? 'existing, ' : ''}or kms`);
  return t;
};

/** What a new CA may name: its issuer and key, or (type existing) the key it reuses. */
const newCaFields = {
  ...caFields,
  issuer_name: f.string({ default: '', description: 'a name for the new issuer, unique in the mount' }),
  key_name: f.string({ default: '', description: 'a name for a new key' }),
  key_ref: f.string({ default: 'default', description: 'type existing: the key to reuse (default, an id or a name)' }),
};

/** A root generation path: root/generate, issuers/generate/root, and root/rotate (issuer named "next" by default). */
/** The name of a pattern's last parameter (root/generate/:exported keeps the name older clients' OpenAPI use). */
const typeParam = (pattern: string) => pattern.split('/').at(-1)!.slice(1);

function rootPath(pattern: string, defaultName: string, help: string) {
  const param = typeParam(pattern);
  return definePath({
    pattern,
    fields: { [param]: f.pathParam(), ...newCaFields } as { type: ReturnType<typeof f.pathParam> } & typeof newCaFields,
    help,
    operations: {
      write: async (req) => {
        const d = req.data;
        const type = checkType((req.data as Record<string, unknown>)[param] as string, true);
        const choice = { ...keyChoice(type, d), keyRef: d.key_ref, keyName: d.key_name };
        const out = await generateRoot(req.deps, req.part, caRequest(d), choice, req.mount.maxLeaseTtl, {
          issuerName: d.issuer_name || defaultName,
        });
        return {
          data: {
            ...certificateData({ ...out, privateKeyFormat: d.private_key_format || 'der' }, d.format),
            ...(await newIssuerData(req, out.issuerId, out.keyId)),
          },
          ...(out.warnings.length ? { warnings: out.warnings } : {}),
        };
      },
    },
  });
}

/** An intermediate CSR path: intermediate/generate, issuers/generate/intermediate, and intermediate/cross-sign (an existing key). */
function intermediatePath(pattern: string, fixedType: string | undefined, help: string) {
  const param = typeParam(pattern);
  return definePath({
    pattern,
    fields: { ...(fixedType ? {} : { [param]: f.pathParam() }), ...newCaFields },
    help,
    operations: {
      write: async (req) => {
        const d = req.data;
        const type = fixedType ?? checkType(((req.data as Record<string, unknown>)[param] as string | undefined) ?? '', true);
        const choice = { ...keyChoice(type, d), keyRef: d.key_ref, keyName: d.key_name };
        const out = await generateIntermediate(req.deps, req.part, caRequest(d), choice);
        const der = d.format === 'der';
        const key = await pkiRepository(req.deps, req.part).key(out.keyId);
        return {
          data: {
            csr: der ? out.csr.toString('base64') : toPem('CERTIFICATE REQUEST', out.csr),
            key_id: out.keyId,
            key_name: key?.name ?? '',
            ...(out.privateKey
              ? {
                  private_key: privateKeyText(out.privateKey, d.private_key_format || 'der', der ? 'der' : 'pem'),
                  private_key_type: out.privateKey.type,
                }
              : {}),
          },
        };
      },
    },
  });
}

/** An intermediate signing path, through the default issuer or the one the path names. */
function signIntermediatePath(pattern: string) {
  return definePath({
    pattern,
    fields: {
      ...(pattern.startsWith('issuer/') ? { issuer_ref: f.pathParam() } : {}),
      ...caFields,
      csr: f.string({ required: true }),
      use_csr_values: f.bool({ default: false }),
    },
    derivedParams: csrParams,
    help: 'Sign an intermediate CA CSR with an issuer of this mount (the default, or the one the path names).',
    operations: {
      write: async (req) => {
        const d = req.data as typeof req.data & { issuer_ref?: string };
        const csr = parseCsr(csrFromPem(d.csr));
        const out = await signIntermediate(
          req.deps,
          req.part,
          csr,
          caRequest(d),
          d.use_csr_values,
          req.mount.maxLeaseTtl,
          d.issuer_ref ?? 'default',
        );
        return { data: certificateData(out, d.format), ...(out.warnings.length ? { warnings: out.warnings } : {}) };
      },
    },
  });
}

/** A self-issued re-signing path, through the default issuer or the one the path names. */
function signSelfIssuedPath(pattern: string) {
  return definePath({
    pattern,
    fields: {
      ...(pattern.startsWith('issuer/') ? { issuer_ref: f.pathParam() } : {}),
      certificate: f.string({ required: true }),
      require_matching_certificate_algorithms: f.bool({ default: false }),
      ...formatFields,
    },
    help: 'Re-sign a self-issued CA certificate with an issuer of this mount.',
    sudo: ['write'],
    operations: {
      write: async (req) => {
        const d = req.data as typeof req.data & { issuer_ref?: string };
        const out = await signSelfIssued(
          req.deps,
          req.part,
          d.certificate,
          d.require_matching_certificate_algorithms,
          d.issuer_ref ?? 'default',
        );
        return { data: { certificate: toPem('CERTIFICATE', out.certificate), issuing_ca: out.issuingCa } };
      },
    },
  });
}

/** An import path: config/ca and issuers/import/bundle take keys; issuers/import/cert does not. */
function importPath(pattern: string, keys: boolean, help: string) {
  return definePath({
    pattern,
    fields: { pem_bundle: f.string({ required: true }) },
    help,
    operations: {
      write: async (req) => {
        if (!keys && /PRIVATE KEY-----/.test(req.data.pem_bundle))
          throw new BadRequest('issuers/import/cert takes certificates only: use issuers/import/bundle for keys');
        return importedResult(await importBundle(req.deps, req.part, req.data.pem_bundle));
      },
    },
  });
}

export const caAdminPaths = [
  rootPath(
    'root/generate/:exported',
    '',
    'Generate a self-signed root CA as a new issuer (exported returns the private key; internal keeps it; existing reuses key_ref; kms uses a managed key).',
  ),
  rootPath('issuers/generate/root/:type', '', 'Generate a self-signed root CA as a new issuer.'),
  rootPath(
    'root/rotate/:type',
    'next',
    'Generate the next root as a new issuer (named "next" unless issuer_name says), to make the default with root/replace.',
  ),
  intermediatePath(
    'intermediate/generate/:exported',
    undefined,
    'Generate a key (or reuse key_ref with type existing) and a CSR for an intermediate CA.',
  ),
  intermediatePath(
    'issuers/generate/intermediate/:type',
    undefined,
    'Generate a key (or reuse key_ref with type existing) and a CSR for an intermediate CA.',
  ),
  intermediatePath(
    'intermediate/cross-sign',
    'existing',
    "A CSR for an existing key (key_ref): another CA's signature makes a cross-signed issuer of it.",
  ),
  signIntermediatePath('root/sign-intermediate'),
  signIntermediatePath('issuer/:issuer_ref/sign-intermediate'),
  signSelfIssuedPath('root/sign-self-issued'),
  signSelfIssuedPath('issuer/:issuer_ref/sign-self-issued'),
  importPath(
    'config/ca',
    true,
    'Import CA certificates and their private key as issuers (the first becomes the default when there is none).',
  ),
  importPath('issuers/import/bundle', true, 'Import CA certificates and private keys as issuers and keys.'),
  importPath('issuers/import/cert', false, 'Import CA certificates (no keys) as issuers.'),
  definePath({
    pattern: 'intermediate/set-signed',
    fields: { certificate: f.string({ required: true }) },
    help: 'Accept the signed certificate of the key made by intermediate/generate.',
    operations: {
      write: async (req) => importedResult(await setSigned(req.deps, req.part, req.data.certificate)),
    },
  }),
  definePath({
    pattern: 'root',
    fields: {},
    help: 'Delete every issuer and key of the mount (their certificates stay on record).',
    sudo: ['delete'],
    operations: {
      delete: async (req) => {
        await deleteAllIssuers(req.deps, req.part);
      },
    },
  }),
];
