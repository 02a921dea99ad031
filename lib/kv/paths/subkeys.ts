/** KV version 2's `subkeys/<path>`: a version's keys with its values left out (null leaves), to `depth` levels. */
import { NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { subkeys } from '../subkeys';
import { kvSecrets } from './common';
import { versionMeta } from './shapes';

export const subkeysPaths = [
  definePath({
    pattern: 'subkeys/*path',
    fields: {
      path: f.pathParam({ description: 'the secret' }),
      version: f.int({ min: 0, description: 'the version (default: the current one)' }),
      depth: f.int({ min: 0, description: 'levels of keys to show (0: all)' }),
    },
    help: "A version's keys without its values: every leaf is null.",
    operations: {
      read: async (req) => {
        const r = await kvSecrets(req).read(req.data.path, req.data.version ?? 0);
        if (!r) throw new NotFound();
        const metadata = versionMeta(r.version, r.meta, r.secret);
        if (r.kind === 'gone') return { data: { subkeys: null, metadata }, status: 404 };
        return { data: { subkeys: subkeys(r.data, req.data.depth ?? 0), metadata } };
      },
    },
  }),
];
