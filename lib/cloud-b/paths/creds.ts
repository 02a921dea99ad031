/** `creds/<name>`: a RAM user's access key, or an STS token, as a flat object with its lease. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { BadRequest } from '../../errors';
import type { EnvReader } from '../../cloud-common/env-settings';
import { toHttpError } from '../../cloud-common/cloud-error';
import { roleName } from '../../cloud-common/names';
import { partitionOf, resolveCredentials } from '../config';
import { issueCreds } from '../creds';
import { flat } from '../flat';
import { readRole } from '../role';
import { endpointsOf } from '../settings';

export const credsPaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'creds/:name',
    readActs: true,
    fields: { name: f.pathParam({ description: 'The role name.' }) },
    help: 'Generate an access key (or an STS token) for a role.',
    operations: {
      read: async (req) => {
        const name = roleName(req.data.name);
        const part = partitionOf(req.deps, req.mount.path);
        const role = await readRole(part, name);
        if (!role) throw new BadRequest(`role "${name}" does not exist`);
        const endpoints = endpointsOf(readEnv);
        const creds = await resolveCredentials(req.deps, part, readEnv, endpoints).catch((e: unknown) => {
          throw toHttpError(e, 'reading instance metadata');
        });
        const displayName = (req.principal?.displayName || 'token').slice(0, 16);
        const out = await issueCreds({ deps: req.deps, mount: req.mount, rpc: { endpoints, creds }, roleName: name, role, displayName, owner: req.principal?.accessor ?? '' });
        return flat({
          access_key: out.accessKey,
          secret_key: out.secretKey,
          ...(out.securityToken ? { security_token: out.securityToken, expiration: out.expiration } : {}),
          lease_id: out.leaseId,
          lease_duration: out.ttl,
          renewable: out.renewable,
        });
      },
    },
  }),
];
