/** `config`: root access key (write, read without the secret, delete). */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { BadRequest, NotFound } from '../../errors';
import { cloudBStore } from '../cloud-b-store';
import { sealedConfig } from '../config';
import { flat } from '../flat';

export const configPaths = () => [
  definePath({
    pattern: 'config',
    fields: {
      access_key: f.string({ description: 'Required. Access key id with the RAM permissions the engine needs.' }),
      secret_key: f.string({ description: 'Required. Its secret; never read back.' }),
    },
    help: 'Configure the access key the engine uses (environment variables and instance metadata are the alternatives).',
    operations: {
      write: async (req) => {
        for (const k of ['access_key', 'secret_key'] as const) if (!req.data[k]) throw new BadRequest(`missing required field "${k}"`);
        if (!/^[A-Za-z0-9.]{1,128}$/.test(req.data.access_key!)) throw new BadRequest('access_key: expected letters, digits and "."');
        if (req.data.secret_key!.length > 256) throw new BadRequest('secret_key is too long');
        const store = cloudBStore(req.part);
        await store.putConfig(await sealedConfig(req.deps, store, req.data.access_key!, req.data.secret_key!));
      },
      read: async (req) => {
        const c = await cloudBStore(req.part).config();
        if (!c) throw new NotFound();
        return flat({ access_key: c.accessKey });
      },
      delete: async (req) => {
        await cloudBStore(req.part).deleteConfig();
      },
    },
  }),
];
