/**
 * KV version 1: `<path>` read, write (any JSON object: the secret is the body), delete, and LIST
 * of a folder. The data is sealed at rest; there are no versions.
 */
import { BadRequest, NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { kvStore, listFolder, secretExistsV1 } from './common';
import { storing } from './shapes';

export const v1Paths = [
  definePath({
    pattern: '',
    fields: {},
    help: 'List the secrets and folders at the top of the mount.',
    operations: { list: (req) => listFolder(req, '') },
  }),
  definePath({
    pattern: '*path',
    fields: { path: f.pathParam({ description: 'the secret, or for LIST the folder' }) },
    takesArbitraryInput: true,
    help: 'Read, write (the body is the secret), delete a secret; LIST a folder.',
    exists: secretExistsV1,
    operations: {
      read: async (req) => {
        const data = await kvStore(req).readV1(req.data.path);
        if (!data) throw new NotFound();
        return { data };
      },
      write: async (req) => {
        const input = req.input ?? {};
        if (!Object.keys(input).length) throw new BadRequest('missing data fields');
        await storing(() => kvStore(req).writeV1(req.data.path, input));
      },
      delete: async (req) => {
        await kvStore(req).remove(req.data.path);
      },
      list: (req) => listFolder(req, req.data.path),
    },
  }),
];
