/**
 * Any other path of a version 2 mount: Vault's 404 telling a client that speaks version 1 (a plain
 * `secret/<path>`) where the versioned API is.
 */
import { NotFound } from '../../errors';
import { f } from '../../http/fields';
import { definePath } from '../../http/path';

const MESSAGE =
  "Invalid path for a versioned K/V secrets engine. See the API docs for the appropriate API endpoints to use. If using the Vault CLI, use 'vault kv get' for this operation.";

const refuse = async (): Promise<never> => {
  throw new NotFound(MESSAGE);
};

export const v2Fallback = [
  definePath({
    pattern: '*path',
    fields: { path: f.pathParam({ description: 'a path outside the versioned API' }) },
    takesArbitraryInput: true,
    help: 'Not a path of a version 2 mount: data/, metadata/, delete/, undelete/, destroy/, subkeys/ and config are.',
    operations: { read: refuse, write: refuse, delete: refuse, list: refuse, patch: refuse },
  }),
];
