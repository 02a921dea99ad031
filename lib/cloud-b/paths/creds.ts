/** `creds/<name>`: a RAM user's access key, or an STS token, as a flat object with its lease. */
import { f } from '../../http/fields';
import { definePath } from '../../http/path';
import { requireRole } from '../../http/role-required';
import type { EnvReader } from '../../cloud-common/env-settings';
import { toDomainError } from '../../cloud-common/cloud-error';
import { cloudRole } from '../../cloud-common/cloud-role';
import { cloudBStore } from '../cloud-b-store';
import { resolveCredentials } from '../config';
import { issueCreds } from '../creds';
import { flat } from '../flat';
import { endpointsOf } from '../settings';

const cloudBRole = cloudRole(cloudBStore);

export const credsPaths = (readEnv: EnvReader) => [
  definePath({
    pattern: 'creds/:name',
    readActs: true,
    fields: { name: f.pathParam({ foldCase: true, description: 'The role name (case-insensitive).' }) },
    help: 'Generate an access key (or an STS token) for a role.',
    operations: {
      read: async (req) => {
        const { name, role } = await requireRole(cloudBRole, req, req.data.name);
        const endpoints = endpointsOf(readEnv);
        const creds = await resolveCredentials(req.deps, cloudBStore(req.part), readEnv, endpoints).catch((e: unknown) => {
          throw toDomainError(e, 'reading instance metadata');
        });
        const displayName = (req.principal?.displayName || 'token').slice(0, 16);
        const out = await issueCreds({
          deps: req.deps,
          mount: req.mount,
          rpc: { endpoints, creds },
          roleName: name,
          role,
          displayName,
          secrets: req.secrets,
        });
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
