/** CA lifecycle paths: root and intermediate generation, signing intermediates, imports. */
import { BadRequest } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext } from '../../http/path';
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
export function importedData(out: Imported): Record<string, unknown> {
  return {
    imported_issuers: out.importedIssuers.length ? out.importedIssuers : null,
    imported_keys: out.importedKeys.length ? out.importedKeys : null,
    existing_issuers: out.existingIssuers.length ? out.existingIssuers : null,
    existing_keys: out.existingKeys.length ? out.existingKeys : null,
    mapping: out.mapping,
  };
}

/** A new issuer's identity, as root/generate answers it. */
async function newIssuerData(req: ReqContext, issuerId: string, keyId: string): Promise<Record<string, unknown>> {
  const repo = pkiRepository(req.deps, req.part);
  const [issuer, key] = await Promise.all([repo.issuer(issuerId), repo.key(keyId)]);
  return { issuer_id: issuerId, issuer_name: issuer?.name ?? '', key_id: keyId, key_name: key?.name ?? '' };
}
const checkType = (t: string) => {
  if (!TYPES.includes(t)) throw new BadRequest(`invalid type "${t.slice(0, 40)}": use exported, internal or kms`);
  return t;
};

export const caAdminPaths = [
  definePath({
    pattern: 'root/generate/:exported',
    fields: { exported: f.pathParam(), ...caFields },
    help: 'Generate a self-signed root CA (exported returns the private key; internal keeps it; kms uses a managed key).',
    operations: {
      write: async (req) => {
        const type = checkType(req.data.exported);
        const out = await generateRoot(req.deps, req.part, caRequest(req.data), keyChoice(type, req.data), req.mount.maxLeaseTtl);
        return {
          data: {
            ...certificateData({ ...out, privateKeyFormat: req.data.private_key_format || 'der' }, req.data.format),
            ...(await newIssuerData(req, out.issuerId, out.keyId)),
          },
          ...(out.warnings.length ? { warnings: out.warnings } : {}),
        };
      },
    },
  }),
  definePath({
    pattern: 'intermediate/generate/:exported',
    fields: { exported: f.pathParam(), ...caFields },
    help: 'Generate an intermediate CA key and a CSR for it.',
    operations: {
      write: async (req) => {
        const type = checkType(req.data.exported);
        const out = await generateIntermediate(req.deps, req.part, caRequest(req.data), keyChoice(type, req.data));
        const der = req.data.format === 'der';
        return {
          data: {
            csr: der ? out.csr.toString('base64') : toPem('CERTIFICATE REQUEST', out.csr),
            key_id: out.keyId,
            ...(out.privateKey
              ? {
                  private_key: privateKeyText(out.privateKey, req.data.private_key_format || 'der', der ? 'der' : 'pem'),
                  private_key_type: out.privateKey.type,
                }
              : {}),
          },
        };
      },
    },
  }),
  definePath({
    pattern: 'root/sign-intermediate',
    fields: { ...caFields, csr: f.string({ required: true }), use_csr_values: f.bool({ default: false }) },
    derivedParams: csrParams,
    help: 'Sign an intermediate CA CSR with this CA.',
    operations: {
      write: async (req) => {
        const csr = parseCsr(csrFromPem(req.data.csr));
        const out = await signIntermediate(req.deps, req.part, csr, caRequest(req.data), req.data.use_csr_values, req.mount.maxLeaseTtl);
        return { data: certificateData(out, req.data.format), ...(out.warnings.length ? { warnings: out.warnings } : {}) };
      },
    },
  }),
  definePath({
    pattern: 'root/sign-self-issued',
    fields: {
      certificate: f.string({ required: true }),
      require_matching_certificate_algorithms: f.bool({ default: false }),
      ...formatFields,
    },
    help: 'Re-sign a self-issued CA certificate with this CA.',
    sudo: ['write'],
    operations: {
      write: async (req) => {
        const out = await signSelfIssued(req.deps, req.part, req.data.certificate, req.data.require_matching_certificate_algorithms);
        return { data: { certificate: toPem('CERTIFICATE', out.certificate), issuing_ca: out.issuingCa } };
      },
    },
  }),
  definePath({
    pattern: 'intermediate/set-signed',
    fields: { certificate: f.string({ required: true }) },
    help: 'Accept the signed certificate of the key made by intermediate/generate.',
    operations: {
      write: async (req) => ({ data: importedData(await setSigned(req.deps, req.part, req.data.certificate)) }),
    },
  }),
  definePath({
    pattern: 'config/ca',
    fields: { pem_bundle: f.string({ required: true }) },
    help: 'Import CA certificates and their private key as issuers (the first becomes the default when there is none).',
    operations: {
      write: async (req) => ({ data: importedData(await importBundle(req.deps, req.part, req.data.pem_bundle)) }),
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
