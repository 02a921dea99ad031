/** `creds/<name>`: a new service principal (or a password on the role's application) with a lease. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { requireRole } from '../../http/role-required';
import { cloudRole } from '../../cloud-common/cloud-role';
import type { EnvReader } from '../../cloud-common/env-settings';
import { cloudAStore } from '../cloud-a-store';
import { effectiveSettings } from '../config';
import { issueCreds } from '../creds';

const cloudARole = cloudRole(cloudAStore);

export const credsPaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'creds/:name',
    readActs: true,
    fields: { name: f.pathParam({ foldCase: true, description: 'The role name (case-insensitive).' }) },
    help: 'Generate a client id and secret for a role.',
    operations: {
      read: async (req) => {
        const { name, role } = await requireRole(cloudARole, req, req.data.name);
        const settings = await effectiveSettings(req.deps, await cloudAStore(req.part).config(), readEnv);
        const out = await issueCreds({
          deps: req.deps,
          mount: req.mount,
          settings,
          roleName: name,
          role,
          secrets: req.secrets,
        });
        return {
          data: { client_id: out.clientId, client_secret: out.clientSecret },
          lease: { id: out.leaseId, duration: out.ttl, renewable: out.renewable },
        };
      },
    },
  }),
];
