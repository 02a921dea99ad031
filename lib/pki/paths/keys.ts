/**
 * The keys of a PKI mount (OpenBao's API): list them, read, rename or delete one, generate one
 * (sealed here, or held by KMS), import one, and the default key. A private key is never read
 * back; `exported` hands it out once, at generation.
 */
import { createPrivateKey } from 'node:crypto';
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type ReqContext, type Result } from '../../http/path';
import { newKey, type KeyChoice } from '../ca';
import { importPrivateKey } from '../ca-import';
import { pkiRepository } from '../issuer';
import { deleteKey, renameKey, setDefaultKey } from '../issuer-admin';
import { pemBlocks, toPem } from '../pem';
import { privateKeyText } from '../private-key';
import type { KeyRecord } from '../storage';

const ref = { key_ref: f.pathParam({ description: 'the key: default, its id or its name' }) };

export const keyView = (k: KeyRecord) => ({
  key_id: k.id,
  key_name: k.name,
  key_type: k.type,
  ...(k.ref.kind === 'kms' ? { managed_key_name: k.ref.name, managed_key_id: k.ref.keyId } : {}),
});

async function listKeys(req: ReqContext): Promise<Result> {
  const all = await pkiRepository(req.deps, req.part).keys();
  if (!all.length) throw new NotFound();
  const def = (await pkiRepository(req.deps, req.part).keysConfig()).default;
  return {
    data: {
      keys: all.map((k) => k.id),
      key_info: Object.fromEntries(all.map((k) => [k.id, { key_name: k.name, is_default: k.id === def }])),
    },
  };
}

const TYPES = ['exported', 'internal', 'kms'];

const generateFields = {
  type: f.pathParam({ description: 'exported (the key is answered once), internal, or kms (a managed key)' }),
  key_name: f.string({ default: '', description: 'a name unique in the mount' }),
  key_type: f.string({ default: 'rsa', enum: ['rsa', 'ec', 'ed25519'] }),
  key_bits: f.int({ default: 0, min: 0 }),
  managed_key_name: f.string(),
  managed_key_id: f.string(),
  private_key_format: f.string({ default: 'der', enum: ['der', 'pkcs8', ''] }),
};

export const keyPaths = [
  definePath({ pattern: 'keys', fields: {}, help: "The mount's keys: ids, with names in key_info.", operations: { list: listKeys } }),
  definePath({
    pattern: 'keys/generate/:type',
    fields: generateFields,
    help: 'Generate a key for later roots and intermediates (type existing, key_ref).',
    operations: {
      write: async (req) => {
        const d = req.data;
        if (!TYPES.includes(d.type)) throw new BadRequest(`invalid type "${d.type.slice(0, 40)}": use exported, internal or kms`);
        // key_type and key_bits are ignored with a managed key, as OpenBao ignores them.
        const choice: KeyChoice = {
          type: d.type as KeyChoice['type'],
          keyType: d.key_type,
          keyBits: d.key_bits,
          keyParamsGiven: false,
          managedKeyName: d.managed_key_name,
          managedKeyId: d.managed_key_id,
          keyName: d.key_name,
        };
        const made = await newKey(req.deps, pkiRepository(req.deps, req.part), choice);
        const exported = made.exported
          ? { private_key: privateKeyText(made.exported, d.private_key_format || 'der', 'pem'), private_key_type: made.exported.type }
          : {};
        return { data: { ...keyView(made.record), ...exported } };
      },
    },
  }),
  definePath({
    pattern: 'keys/import',
    fields: { pem_bundle: f.string({ required: true }), key_name: f.string({ default: '' }) },
    help: 'Import an unencrypted private key (PEM).',
    operations: {
      write: async (req) => {
        const blocks = pemBlocks(req.data.pem_bundle, 'the PEM bundle').filter((b) => b.label.endsWith('PRIVATE KEY'));
        if (blocks.length !== 1) throw new BadRequest('the PEM bundle must hold exactly one unencrypted private key');
        let key;
        try {
          key = createPrivateKey({ key: toPem(blocks[0]!.label, blocks[0]!.der), format: 'pem' });
        } catch {
          throw new BadRequest('the private key could not be parsed (encrypted keys are not supported)');
        }
        const { record, created } = await importPrivateKey(req.deps, pkiRepository(req.deps, req.part), key, req.data.key_name);
        // OpenBao's words: an existing key keeps its name.
        return { data: keyView(record), ...(created ? {} : { warnings: ['Key already imported, use key/ endpoint to update name.'] }) };
      },
    },
  }),
  definePath({
    pattern: 'key/:key_ref',
    fields: { ...ref, key_name: f.string({ default: '' }) },
    help: 'Read, rename or delete a key (refused while an issuer uses it).',
    operations: {
      read: async (req) => ({ data: keyView(await pkiRepository(req.deps, req.part).resolveKey(req.data.key_ref)) }),
      write: async (req) => ({ data: keyView(await renameKey(req.deps, req.part, req.data.key_ref, req.data.key_name)) }),
      delete: async (req) => {
        await deleteKey(req.deps, req.part, req.data.key_ref);
      },
    },
  }),
  definePath({
    pattern: 'config/keys',
    fields: { default: f.string({ description: 'the default key: an id or a name' }) },
    help: 'The default key.',
    operations: {
      read: async (req) => ({ data: { default: (await pkiRepository(req.deps, req.part).keysConfig()).default } }),
      write: async (req) => {
        if (req.data.default) await setDefaultKey(req.deps, req.part, req.data.default);
        return { data: { default: (await pkiRepository(req.deps, req.part).keysConfig()).default } };
      },
    },
  }),
];
