/** KV version 2's `delete/<path>`, `undelete/<path>` and `destroy/<path>`: act on the versions named. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { versionNumbers, type KvSecrets } from '../secrets';
import { kvSecrets } from './common';

const fields = {
  path: f.pathParam({ description: 'the secret' }),
  versions: f.any({ description: 'the version numbers: a list of integers' }),
};

function versionsPath(
  pattern: string,
  help: string,
  missing: string,
  act: (s: KvSecrets, path: string, versions: number[]) => Promise<void>,
) {
  return definePath({
    pattern: `${pattern}/*path`,
    fields,
    help,
    operations: {
      write: async (req) => {
        await act(kvSecrets(req), req.data.path, versionNumbers(req.data.versions, missing));
      },
    },
  });
}

export const versionPaths = [
  versionsPath('delete', 'Soft-delete the versions named (undelete restores them).', 'No version number provided', (s, p, v) =>
    s.deleteVersions(p, v),
  ),
  versionsPath('undelete', 'Restore soft-deleted versions.', 'No version number provided', (s, p, v) => s.undeleteVersions(p, v)),
  versionsPath('destroy', 'Remove the data of the versions named, for good.', 'no version number provided', (s, p, v) =>
    s.destroyVersions(p, v),
  ),
];
