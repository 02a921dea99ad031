/** `creds/<name>`: a new service principal (or a password on the role's application) with a lease. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { BadRequest } from '../../errors';
import type { EnvReader } from '../../cloud-common/env-settings';
import { roleName } from '../../cloud-common/names';
import { effectiveSettings, partitionOf, readConfig } from '../config';
import { issueCreds } from '../creds';
import { readRole } from '../role';

export const credsPaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'creds/:name',
    readActs: true,
    fields: { name: f.pathParam({ description: 'The role name.' }) },
    help: 'Generate a client id and secret for a role.',
    operations: {
      read: async (req) => {
        const name = roleName(req.data.name);
        const part = partitionOf(req.deps, req.mount.path);
        const role = await readRole(part, name);
        if (!role) throw new BadRequest(`role "${name}" does not exist`);
        const settings = await effectiveSettings(req.deps, (await readConfig(part))?.value, readEnv);
        const out = await issueCreds({ deps: req.deps, mount: req.mount, settings, roleName: name, role, owner: req.principal?.accessor ?? '' });
        return {
          data: { client_id: out.clientId, client_secret: out.clientSecret },
          lease: { id: out.leaseId, duration: out.ttl, renewable: out.renewable },
        };
      },
    },
  }),
];
