/** KV version 2's `config`: the mount's max_versions, cas_required and delete_version_after. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { kvStore } from './common';
import { configShape } from './shapes';

export const configPaths = [
  definePath({
    pattern: 'config',
    fields: {
      max_versions: f.int({ min: 0, description: 'versions kept per secret (0: 10)' }),
      cas_required: f.bool({ description: 'every write must give options.cas' }),
      delete_version_after: f.duration({ description: 'versions are deleted this long after written (0: never)' }),
    },
    help: "The mount's settings for every secret: max_versions, cas_required, delete_version_after.",
    operations: {
      read: async (req) => ({ data: configShape(await kvStore(req).config()) }),
      write: async (req) => {
        const store = kvStore(req);
        const c = await store.config();
        await store.putConfig({
          maxVersions: req.data.max_versions ?? c.maxVersions,
          casRequired: req.data.cas_required ?? c.casRequired,
          deleteVersionAfter: req.data.delete_version_after ?? c.deleteVersionAfter,
        });
      },
    },
  }),
];
