/**
 * KV version 2's `metadata/<path>`: read a secret's metadata and versions, set its settings
 * (max_versions, cas_required, delete_version_after, custom_metadata), patch them, delete the
 * secret with every version, and LIST the names under a folder.
 */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath, type Req } from '../../http/path';
import { checkCustomMetadata } from '../records';
import type { MetadataSettings } from '../secrets';
import { kvSecrets, kvStore, listFolder, secretExists } from './common';
import { secretMetadata } from './shapes';

const fields = {
  path: f.pathParam({ description: 'the secret, or for LIST the folder' }),
  max_versions: f.int({ min: 0, description: 'versions kept (0: the mount setting, else 10)' }),
  cas_required: f.bool({ description: 'writes must give options.cas' }),
  delete_version_after: f.duration({ description: 'versions are deleted this long after written (0: never)' }),
  custom_metadata: f.any({ description: 'string keys and values, not secret' }),
};

function customMetadataOf(v: unknown): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string'))
    throw new BadRequest('custom_metadata must be an object of string values');
  checkCustomMetadata(v as Record<string, string>);
  return v as Record<string, string>;
}

function settingsOf(req: Req<typeof fields>): MetadataSettings {
  const customMetadata = customMetadataOf(req.data.custom_metadata);
  return {
    ...(req.data.max_versions !== undefined ? { maxVersions: req.data.max_versions } : {}),
    ...(req.data.cas_required !== undefined ? { casRequired: req.data.cas_required } : {}),
    ...(req.data.delete_version_after !== undefined ? { deleteVersionAfter: req.data.delete_version_after } : {}),
    ...(customMetadata !== undefined ? { customMetadata } : {}),
  };
}

export const metadataPaths = [
  definePath({
    pattern: 'metadata',
    fields: {},
    help: 'List the secrets and folders at the top of the mount.',
    operations: { list: (req) => listFolder(req, '') },
  }),
  definePath({
    pattern: 'metadata/*path',
    fields,
    help: "A secret's metadata and versions: read, set its settings, patch them, delete the secret with every version; LIST a folder.",
    exists: secretExists,
    operations: {
      read: async (req) => {
        const secret = await kvSecrets(req).metadata(req.data.path);
        if (!secret) throw new NotFound();
        return { data: secretMetadata(secret) };
      },
      write: async (req) => {
        const settings = settingsOf(req);
        const config = await kvStore(req).config();
        await kvSecrets(req).writeMetadata(req.data.path, settings);
        if (settings.casRequired === false && config.casRequired)
          return { warnings: ['"cas_required" set to false, but is mandated by backend config. This value will be ignored.'] };
      },
      patch: async (req) => {
        await kvSecrets(req).writeMetadata(req.data.path, settingsOf(req), true);
      },
      delete: async (req) => {
        await kvSecrets(req).destroyAll(req.data.path);
      },
      list: (req) => listFolder(req, req.data.path),
    },
  }),
];
